/**
 * The SDK transport of one MCP server (issue 30 item 2): a stdio child
 * (`command`/`args`/`env`/`cwd`, cwd defaulting to the session's workspace,
 * env = the SDK's minimal inherited environment plus the spec's resolved
 * templates) whose stderr tail is kept for error messages, or a streamable
 * HTTP endpoint with resolved headers.
 */
import { getDefaultEnvironment, StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { McpTransportSpec } from '../../core/mcp/types.js';
import { resolveTemplates } from './env-template.js';
import { sourceRelative } from '../infra/install-root.js';

/** The guard every stdio server runs behind (stdio-guard.mjs). */
export const STDIO_GUARD_PATH = sourceRelative(import.meta.url, './stdio-guard.mjs');

/** Most characters of a server's stderr kept for its error messages. */
const STDERR_TAIL_CHARS = 2_000;

/** An opened (not yet started) transport and what is known of its process. */
export interface OpenedTransport {
  transport: Transport;
  /** The newest stderr output of a stdio server (empty for HTTP). */
  stderrTail(): string;
  /** Whether the stdio child still exists (HTTP: always true). */
  alive(): boolean;
  /** The stdio child's pid once started (its guard's), else null. */
  pid(): number | null;
}

/**
 * Builds the transport of `spec`.
 * @param workspace the session's workspace (stdio `cwd` default).
 * @throws McpTemplateError when an `env`/`headers` template names an unset variable.
 */
export function openTransport(spec: McpTransportSpec, workspace: string): OpenedTransport {
  if (spec.kind === 'http') {
    const headers = resolveTemplates(spec.headers, process.env, 'header');
    const transport = new StreamableHTTPClientTransport(new URL(spec.url), { requestInit: { headers } });
    return { transport, stderrTail: () => '', alive: () => true, pid: () => null };
  }
  const env = { ...getDefaultEnvironment(), ...resolveTemplates(spec.env, process.env, 'env') };
  // Behind the guard: the server (and what it forks) never outlives this worker (stdio-guard.mjs).
  const stdio = new StdioClientTransport({
    command: process.execPath,
    args: [STDIO_GUARD_PATH, spec.command, ...spec.args],
    env,
    cwd: spec.cwd ?? workspace,
    stderr: 'pipe',
  });
  let tail = '';
  stdio.stderr?.on('data', (chunk: Buffer) => {
    tail = (tail + chunk.toString('utf8')).slice(-STDERR_TAIL_CHARS);
  });
  return {
    transport: stdio,
    stderrTail: () => tail.trim(),
    alive: () => processAlive(stdio.pid),
    pid: () => stdio.pid,
  };
}

/** true while process `pid` exists (signal 0 probes without sending). */
function processAlive(pid: number | null): boolean {
  if (pid === null) return false;
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}
