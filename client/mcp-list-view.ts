/**
 * What `zuno mcp list` reports (issue 30 item 1; docs/mcp.md "zuno mcp
 * list"): each configured server with its transport (the command line or
 * the URL — never an `env` or header value), whether it is enabled, its
 * exposure, and how it stood when this command connected to it:
 * `connected` with its tools, `failed` with the server's own error, or
 * `configured` (disabled: not started). Pure: the command connects, this
 * shapes and renders.
 */
import { inertLine } from '../core/terminal-text.js';
import type { McpServerSpec } from '../core/mcp/types.js';
import type { McpServerStatus } from '../activities/mcp/index.js';
import { textTable } from './text-table.js';

/** One tool of a connected server, in machine names (`--json`). */
export interface McpListTool {
  /** Wire name, `mcp__<server>__<tool>`: what the model calls and permission rules name. */
  name: string;
  /** The tool's own name on its server. */
  tool: string;
  title?: string;
  effect: 'ReadOnly' | 'SideEffecting';
  replay: 'Safe' | 'Never';
  concurrency: 'ParallelSafe' | 'Exclusive';
}

/** One configured server as the list reports it (`--json`: `{servers: McpListServer[]}`). */
export interface McpListServer {
  name: string;
  enabled: boolean;
  exposure: McpServerSpec['exposure'];
  annotations: McpServerSpec['annotations'];
  /** The command line or URL; of `env`/`headers` only the names. */
  transport:
    | { kind: 'stdio'; command: string; args: string[]; cwd?: string; env: string[] }
    | { kind: 'http'; url: string; headers: string[] };
  /** `configured`: disabled, not started; `connected`; `failed`/`closed`: see `error`. */
  status: 'configured' | McpServerStatus['status'];
  error?: string;
  /** Catalog revision (connected servers). */
  revision?: number;
  tools: McpListTool[];
}

/** The transport as listed: no template value appears. */
function listedTransport(t: McpServerSpec['transport']): McpListServer['transport'] {
  if (t.kind === 'http') return { kind: 'http', url: t.url, headers: Object.keys(t.headers) };
  return {
    kind: 'stdio',
    command: t.command,
    args: [...t.args],
    ...(t.cwd !== undefined ? { cwd: t.cwd } : {}),
    env: Object.keys(t.env),
  };
}

/**
 * The report of every configured server, in config order.
 * @param specs every server of zuno.json (enabled or not).
 * @param statuses the hub's statuses of the enabled ones; an enabled server without one is `failed`.
 */
export function mcpListReport(
  specs: readonly (McpServerSpec & { enabled: boolean })[],
  statuses: readonly McpServerStatus[],
): McpListServer[] {
  return specs.map((s) => {
    const base = {
      name: s.name,
      enabled: s.enabled,
      exposure: s.exposure,
      annotations: s.annotations,
      transport: listedTransport(s.transport),
    };
    if (!s.enabled) return { ...base, status: 'configured', tools: [] };
    const st = statuses.find((x) => x.name === s.name);
    if (!st) return { ...base, status: 'failed', error: 'no answer from the MCP client', tools: [] };
    return {
      ...base,
      status: st.status,
      ...(st.error !== undefined ? { error: st.error } : {}),
      ...(st.status === 'connected' ? { revision: st.revision } : {}),
      tools: st.tools.map((t) => ({
        name: t.name,
        tool: t.tool,
        ...(t.title !== undefined ? { title: t.title } : {}),
        effect: t.facts.effect,
        replay: t.facts.replay === 'Safe' ? 'Safe' : 'Never',
        concurrency: t.facts.concurrency,
      })),
    };
  });
}

/** A command-line word as a person would type it (quoted when it holds a space or a quote). */
function shellWord(w: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(w) ? w : JSON.stringify(w);
}

/** `stdio: npx -y pkg (in /dir)` or `http: https://host/mcp`. */
function transportText(t: McpListServer['transport']): string {
  if (t.kind === 'http') return `http: ${t.url}`;
  const line = [t.command, ...t.args].map(shellWord).join(' ');
  return `stdio: ${line}${t.cwd !== undefined ? ` (in ${t.cwd})` : ''}`;
}

/** The state line under a server's header. */
function stateText(s: McpListServer): string {
  if (s.status === 'configured') return 'configured (disabled: not started)';
  if (s.status === 'connected') return `connected: ${s.tools.length} tool${s.tools.length === 1 ? '' : 's'}`;
  return `${s.status}: ${inertLine(s.error ?? 'no error given', 500)}`;
}

/** The human listing: per server a header, its state and, when connected, a table of its tools. */
export function renderMcpList(servers: readonly McpListServer[]): string {
  if (servers.length === 0)
    return 'no MCP servers configured: add them under "mcp": {"servers": {…}} in zuno.json (docs/mcp.md)\n';
  const blocks = servers.map((s) => {
    const head = `${s.name}  ${s.enabled ? 'enabled' : 'disabled'}  exposure ${s.exposure}  ${inertLine(transportText(s.transport), 200)}`;
    const lines = [head, `  ${stateText(s)}`];
    if (s.tools.length > 0) {
      const rows = s.tools.map((t) => [
        inertLine(t.name),
        t.effect === 'ReadOnly' ? 'read-only' : 'changes things',
        t.replay,
      ]);
      const table = textTable(['TOOL', 'EFFECT', 'REPLAY'], rows);
      lines.push(
        ...table
          .trimEnd()
          .split('\n')
          .map((l) => `    ${l}`),
      );
    }
    return lines.join('\n');
  });
  return `${blocks.join('\n\n')}\n`;
}
