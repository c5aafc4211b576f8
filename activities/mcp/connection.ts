/**
 * One live MCP connection: one server for one session (issue 30 item 2,
 * MC1). Opens the transport, runs `initialize` and the first `tools/list`
 * within the server's startup limit, answers `roots/list` with the
 * session's workspace, counts `notifications/tools/list_changed` (the hub
 * re-lists at its next catalog), and calls tools with the call limit,
 * cancellation and progress. A connection whose transport closed is dead
 * for good; the hub drops it and opens a new one.
 */
import { pathToFileURL } from 'node:url';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPError } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  ErrorCode,
  ListRootsRequestSchema,
  McpError,
  ToolListChangedNotificationSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { McpAnnotations, McpServerSpec } from '../../core/mcp/types.js';
import { describeMcpError, errnoOf } from './errors.js';
import { type OpenedTransport, openTransport } from './transport.js';
import { McpCallError, type McpCallAnswer, type McpProgress } from './types.js';

/** A tool as its server listed it. */
export interface ListedTool {
  name: string;
  title?: string;
  description: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpAnnotations;
}

/** Options of one `tools/call`. */
export interface CallOptions {
  timeoutMs: number;
  signal?: AbortSignal;
  onProgress?: (p: McpProgress) => void;
}

/** One session's connection to one server (see module doc). */
export class McpConnection {
  /** The tools of the newest listing. */
  tools: ListedTool[] = [];
  private readonly client: Client;
  private opened?: OpenedTransport;
  /** Why the connection ended (set once its transport closed). */
  private ended?: string;
  private closing = false;
  /** Set once the startup succeeded: only then does an end reach `onEnd`. */
  private started = false;
  private changes = 0;
  private listedAt = 0;

  private constructor(
    private readonly spec: McpServerSpec,
    private readonly workspace: string,
    private readonly onEnd: (error: string) => void,
  ) {
    // A root is offered only when the server's config asks for it (McpServerSpec.roots).
    this.client = new Client(
      { name: 'zuno', version: '0.1.0' },
      { capabilities: spec.roots ? { roots: { listChanged: false } } : {} },
    );
    if (spec.roots)
      this.client.setRequestHandler(ListRootsRequestSchema, () => ({
        roots: [{ uri: pathToFileURL(workspace).href, name: 'workspace' }],
      }));
    this.client.setNotificationHandler(ToolListChangedNotificationSchema, () => {
      this.changes++;
    });
    this.client.onclose = () => this.end('the connection closed');
  }

  /**
   * Connects, initializes and lists the tools within `spec.startupTimeoutMs`.
   * @param onEnd called once when the connection dies on its own (not on {@link close}).
   * @throws Error with the server's own words (stderr tail, HTTP status, spawn error) on any failure.
   */
  static async open(spec: McpServerSpec, workspace: string, onEnd: (error: string) => void): Promise<McpConnection> {
    const c = new McpConnection(spec, workspace, onEnd);
    let timer: NodeJS.Timeout | undefined;
    const limit = spec.startupTimeoutMs;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`did not start within ${limit} ms`)), limit);
    });
    try {
      c.opened = openTransport(spec.transport, workspace);
      await Promise.race([c.client.connect(c.opened.transport, { timeout: limit }).then(() => c.list(limit)), late]);
      c.started = true;
      return c;
    } catch (err) {
      const message = describeMcpError(err, c.opened?.stderrTail());
      await c.close();
      throw new Error(message);
    } finally {
      clearTimeout(timer);
    }
  }

  /** true when the server said its tool list changed since the newest listing was requested. */
  get stale(): boolean {
    return this.changes !== this.listedAt;
  }

  /** true while the transport is open and (stdio) the process exists. */
  get alive(): boolean {
    return this.ended === undefined && !this.closing && (this.opened?.alive() ?? false);
  }

  /** Why it ended, once it did. */
  get error(): string | undefined {
    return this.ended;
  }

  /** The stdio server's pid (null for HTTP). */
  get pid(): number | null {
    return this.opened?.pid() ?? null;
  }

  /** Re-lists the tools (every page), within `timeoutMs` per request. */
  async list(timeoutMs: number): Promise<void> {
    const mark = this.changes;
    const tools: ListedTool[] = [];
    let cursor: string | undefined;
    try {
      do {
        const page = await this.client.listTools(cursor ? { cursor } : undefined, { timeout: timeoutMs });
        for (const t of page.tools) tools.push(listed(t));
        cursor = page.nextCursor;
      } while (cursor);
    } catch (err) {
      if (notSent(err) || err instanceof TypeError) this.end(describeMcpError(err));
      throw err;
    }
    this.tools = tools;
    this.listedAt = mark;
  }

  /**
   * One `tools/call`.
   * @throws McpCallError: `disconnected` when dead before sending, `lost` on a timeout, a cancellation or the
   *   connection dropping mid-call, `failed` on a JSON-RPC error.
   */
  async call(tool: string, args: Record<string, unknown>, opts: CallOptions): Promise<McpCallAnswer> {
    if (!this.alive) {
      this.end('the server process exited');
      throw this.disconnected();
    }
    try {
      const r = await this.client.callTool({ name: tool, arguments: args }, undefined, {
        timeout: opts.timeoutMs,
        resetTimeoutOnProgress: false,
        ...(opts.signal ? { signal: opts.signal } : {}),
        ...(opts.onProgress ? { onprogress: opts.onProgress } : {}),
      });
      const content = Array.isArray(r.content) ? (r.content as Array<Record<string, unknown>>) : [];
      const structured = r.structuredContent as Record<string, unknown> | undefined;
      return { content, ...(structured ? { structuredContent: structured } : {}), isError: r.isError === true };
    } catch (err) {
      throw this.callError(err, opts);
    }
  }

  /**
   * Closes the transport. A stdio server's guard is asked first (SIGTERM: it
   * ends the server's group, SIGKILL 2 s later), so a busy server that
   * ignores stdin closing does not hold the close; then the SDK's close.
   */
  async close(): Promise<void> {
    this.closing = true;
    const pid = this.opened?.pid();
    if (pid) {
      try {
        process.kill(pid, 'SIGTERM');
      } catch {
        // already gone
      }
    }
    await this.client.close().catch(() => undefined);
    await this.opened?.transport.close().catch(() => undefined);
  }

  private end(reason: string): void {
    if (this.ended !== undefined || this.closing) return;
    this.ended = describeMcpError(new Error(reason), this.opened?.stderrTail());
    if (this.started) this.onEnd(this.ended);
  }

  private disconnected(): McpCallError {
    const why = this.ended ?? 'its process is gone';
    return new McpCallError(
      'disconnected',
      `MCP server "${this.spec.name}" is not connected (${why}); nothing was sent`,
    );
  }

  private callError(err: unknown, opts: CallOptions): McpCallError {
    const name = `MCP server "${this.spec.name}"`;
    const text = describeMcpError(err, this.opened?.stderrTail());
    if (opts.signal?.aborted) return new McpCallError('lost', `the call to ${name} was cancelled in flight: ${text}`);
    if (err instanceof McpError && err.code === ErrorCode.RequestTimeout)
      return new McpCallError('lost', `no answer from ${name} within ${opts.timeoutMs} ms: ${text}`);
    if (this.ended !== undefined) return new McpCallError('lost', `${name} went away mid-call: ${text}`);
    // The transport failed (an HTTP endpoint gone or forgetting the session): this connection is over.
    if (notSent(err)) {
      this.end(text);
      return this.disconnected();
    }
    if (err instanceof McpError) return new McpCallError('failed', `${name}: ${err.message}`);
    if (err instanceof TypeError) {
      this.end(text);
      return new McpCallError('lost', `${name}: ${text}`);
    }
    return new McpCallError('failed', `${name}: ${text}`);
  }
}

/**
 * true when a request failed before the server could act on it: no
 * transport, a refused connection, or an HTTP 404 (the endpoint no longer
 * knows the MCP session, e.g. the server restarted).
 */
function notSent(err: unknown): boolean {
  if ((err as Error)?.message === 'Not connected' || errnoOf(err) === 'ECONNREFUSED') return true;
  return err instanceof StreamableHTTPError && err.code === 404;
}

/** The fields Zuno keeps of a listed tool. */
function listed(t: {
  name: string;
  title?: string;
  description?: string;
  inputSchema: Record<string, unknown>;
  annotations?: McpAnnotations;
}): ListedTool {
  return {
    name: t.name,
    ...(t.title ? { title: t.title } : {}),
    description: t.description ?? '',
    inputSchema: t.inputSchema,
    ...(t.annotations ? { annotations: t.annotations } : {}),
  };
}
