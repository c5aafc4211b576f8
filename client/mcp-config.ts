/**
 * The `mcp` key of `zuno.json` (issue 30 item 1, MC1, MC6, MC10 SEED-GAP;
 * docs/mcp.md "Configuration") and its resolution into the session meta's
 * `mcp` ({@link McpSessionConfig}). Every object is strict, so an unknown
 * key is named (`mcp.servers.everything.comand: unknown key`).
 *
 * ```json
 * "mcp": {
 *   "exposure": "auto", "tool_search": true, "budget": { "tools": 40, "bytes": 49152 },
 *   "servers": {
 *     "everything": { "command": "npx", "args": ["-y", "@modelcontextprotocol/server-everything"] },
 *     "tracker": { "url": "https://mcp.example.com/mcp", "headers": { "Authorization": "Bearer ${TRACKER_TOKEN}" } }
 *   }
 * }
 * ```
 *
 * A server is stdio (`command`, `args`, `env`, `cwd`) or streamable HTTP
 * (`url`, `headers`), never both. `env` and `headers` values are templates
 * (core/mcp/template.ts) resolved by the worker; a name that looks secret
 * must take its value from a `${NAME}` reference, so no secret is written
 * into workflow history.
 */
import { homedir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { z } from 'zod';
import { agentRole } from '../core/agents.js';
import { mcpAccessFor } from '../core/mcp/access.js';
import { SECRET_NAME, templateProblem, templateRefs } from '../core/mcp/template.js';
import {
  DEFAULT_MCP_BUDGET,
  DEFAULT_MCP_CALL_MS,
  DEFAULT_MCP_CONNECTIONS,
  DEFAULT_MCP_STARTUP_MS,
  type McpServerSpec,
  type McpSessionConfig,
  type McpTransportSpec,
} from '../core/mcp/types.js';

/**
 * A server name: 1–32 letters, digits, `_` or `-`, no `__` and no `_` at
 * either end, so that `mcp__<server>__` starts the tool names of exactly
 * one server (a rule `mcp__<server>__*` never covers another server's tools).
 */
export function serverNameProblem(name: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,32}$/.test(name)) return 'a server name is 1-32 letters, digits, "_" or "-"';
  if (name.includes('__') || name.startsWith('_') || name.endsWith('_'))
    return 'a server name has no "__" and no "_" at either end (its tools are named mcp__<server>__<tool>)';
  return null;
}

/** An environment variable name. */
const ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]*$/;
/** An HTTP header name (RFC 9110 token). */
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

const ExposureSchema = z.enum(['auto', 'eager', 'deferred']);

/** `env` or `headers`: names checked, values templates, secret-looking names only by reference. */
function templateMap(nameRe: RegExp, what: string) {
  return z.record(z.string(), z.string()).superRefine((map, ctx) => {
    for (const [name, value] of Object.entries(map)) {
      const problem = nameRe.test(name) ? templateProblem(value) : `not ${what}`;
      if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
      else if (SECRET_NAME.test(name) && templateRefs(value).length === 0)
        ctx.addIssue({
          code: 'custom',
          path: [name],
          message:
            'looks like a secret, and a literal value would be stored in workflow history: put the secret in the environment and write "${NAME}"',
        });
    }
  });
}

/** A streamable HTTP endpoint: http(s), no credentials, query or fragment (they would be stored in history). */
const UrlSchema = z
  .url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://host/mcp' })
  .refine((u) => {
    try {
      const url = new URL(u);
      return url.username === '' && url.password === '' && url.search === '' && url.hash === '';
    } catch {
      return true; // already reported by z.url
    }
  }, 'must not carry credentials, a query string or a fragment; send a secret in headers as "${NAME}"');

const ServerSchema = z
  .strictObject({
    command: z.string().min(1, 'an empty command').optional(),
    args: z.array(z.string()).optional(),
    env: templateMap(ENV_NAME, 'an environment variable name').optional(),
    cwd: z.string().min(1, 'an empty directory').optional(),
    url: UrlSchema.optional(),
    headers: templateMap(HEADER_NAME, 'an HTTP header name').optional(),
    enabled: z.boolean().default(true),
    startup_timeout_ms: z.number().int().min(100).max(600_000).default(DEFAULT_MCP_STARTUP_MS),
    call_timeout_ms: z.number().int().min(100).max(3_600_000).default(DEFAULT_MCP_CALL_MS),
    exposure: ExposureSchema.optional(),
    annotations: z.enum(['trust', 'ignore']).default('trust'),
    roots: z.boolean().default(false),
  })
  .superRefine((s, ctx) => {
    if (s.command !== undefined && s.url !== undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'has both "command" (stdio) and "url" (streamable HTTP): a server is one or the other',
      });
    else if (s.command === undefined && s.url === undefined)
      ctx.addIssue({
        code: 'custom',
        message: 'needs "command" (a stdio server) or "url" (a streamable HTTP server)',
      });
    else if (s.url !== undefined)
      for (const key of ['args', 'env', 'cwd'] as const)
        if (s[key] !== undefined)
          ctx.addIssue({ code: 'custom', path: [key], message: 'only a stdio server (one with "command") has it' });
    if (s.command !== undefined && s.headers !== undefined)
      ctx.addIssue({ code: 'custom', path: ['headers'], message: 'only an HTTP server (one with "url") has headers' });
  });

/** zuno.json `mcp` (docs/mcp.md): absent keys take the defaults. */
export const McpConfigSchema = z.strictObject({
  /** MC1: the default exposure of every server (a server's own `exposure` wins). */
  exposure: ExposureSchema.default('auto'),
  /** MC6: false keeps every permitted MCP schema directly visible (no `tool_search`). */
  tool_search: z.boolean().default(true),
  /** The `auto` budget (core/mcp/types.ts DEFAULT_MCP_BUDGET). */
  budget: z
    .strictObject({
      tools: z.number().int().min(0).max(1_000).default(DEFAULT_MCP_BUDGET.tools),
      bytes: z
        .number()
        .int()
        .min(0)
        .max(4 * 1024 * 1024)
        .default(DEFAULT_MCP_BUDGET.bytes),
    })
    .prefault({}),
  servers: z
    .record(z.string(), ServerSchema)
    .superRefine((servers, ctx) => {
      for (const name of Object.keys(servers)) {
        const problem = serverNameProblem(name);
        if (problem) ctx.addIssue({ code: 'custom', path: [name], message: problem });
      }
    })
    .default({}),
});

/** `concurrency.mcp_connections` (TD6, MC9): a session's MCP requests in flight at once, 1..64. */
export const McpConnectionsSchema = z
  .number({ error: 'a whole number from 1 to 64' })
  .int('a whole number from 1 to 64')
  .min(1, 'a whole number from 1 to 64')
  .max(64, 'a whole number from 1 to 64')
  .default(DEFAULT_MCP_CONNECTIONS);

/** Validated zuno.json `mcp`. */
export type McpConfig = z.infer<typeof McpConfigSchema>;
/** One validated server entry. */
export type McpServerConfig = McpConfig['servers'][string];

/** A stdio `cwd` as an absolute path: absolute, `~/…` (the home directory), else relative to the workspace. */
function serverCwd(cwd: string, workspace: string): string {
  if (cwd === '~' || cwd.startsWith('~/')) return join(homedir(), cwd.slice(1));
  return isAbsolute(cwd) ? resolve(cwd) : resolve(workspace, cwd);
}

/** The transport of a validated server entry (validation guarantees `command` or `url`). */
function transportOf(s: McpServerConfig, workspace: string): McpTransportSpec {
  if (s.url !== undefined) return { kind: 'http', url: s.url, headers: { ...(s.headers ?? {}) } };
  return {
    kind: 'stdio',
    command: s.command!,
    args: [...(s.args ?? [])],
    env: { ...(s.env ?? {}) },
    ...(s.cwd !== undefined ? { cwd: serverCwd(s.cwd, workspace) } : {}),
  };
}

/** Every configured server (enabled or not), in config order, as a session would carry it. */
export function mcpServerSpecs(mcp: McpConfig, workspace: string): (McpServerSpec & { enabled: boolean })[] {
  return Object.entries(mcp.servers).map(([name, s]) => ({
    name,
    transport: transportOf(s, workspace),
    startupTimeoutMs: s.startup_timeout_ms,
    callTimeoutMs: s.call_timeout_ms,
    exposure: s.exposure ?? mcp.exposure,
    annotations: s.annotations,
    roots: s.roots,
    enabled: s.enabled,
  }));
}

/**
 * The session meta's `mcp` (issue 30): the enabled servers of zuno.json in
 * config order, `tool_search`, the budget, `concurrency.mcp_connections`,
 * and the MC4 access of the session's role (`agentTools`, the role's
 * allowlist; absent: the default role's). Pure.
 * @returns undefined when no server is enabled (the session has no MCP).
 */
export function sessionMcp(
  zcfg: { mcp: McpConfig; concurrency: { mcp_connections: number } },
  workspace: string,
  agentTools?: readonly string[],
): McpSessionConfig | undefined {
  const servers = mcpServerSpecs(zcfg.mcp, workspace)
    .filter((s) => s.enabled)
    .map(({ enabled: _enabled, ...spec }) => spec);
  if (servers.length === 0) return undefined;
  const tools = agentTools ?? agentRole(undefined)?.tools ?? [];
  return {
    servers,
    toolSearch: zcfg.mcp.tool_search,
    budget: { tools: zcfg.mcp.budget.tools, bytes: zcfg.mcp.budget.bytes },
    connections: zcfg.concurrency.mcp_connections,
    access: mcpAccessFor(tools),
  };
}

/** Every environment variable the servers' `env` and `headers` templates reference, in order. */
export function mcpTemplateVariables(mcp: McpSessionConfig | undefined): string[] {
  const names = new Set<string>();
  for (const s of mcp?.servers ?? []) {
    const values = s.transport.kind === 'stdio' ? Object.values(s.transport.env) : Object.values(s.transport.headers);
    for (const v of values) for (const n of templateRefs(v)) names.add(n);
  }
  return [...names];
}
