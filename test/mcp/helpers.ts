/**
 * Real MCP servers for the hub tests: `@modelcontextprotocol/server-everything`
 * (stdio and streamable HTTP) and `@modelcontextprotocol/server-filesystem`,
 * resolved from node_modules, and McpSessionConfig builders.
 */
import { freePort } from '../helpers/dev-server.js';
import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { McpServerSpec, McpSessionConfig } from '../../core/mcp/types.js';
import { DEFAULT_MCP_BUDGET } from '../../core/mcp/types.js';

const require = createRequire(import.meta.url);

/** The everything server's entry (`<entry> stdio` / `<entry> streamableHttp`). */
export const EVERYTHING = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
/** The filesystem server's entry (`<entry> <allowed dir>…`). */
export const FILESYSTEM = require.resolve('@modelcontextprotocol/server-filesystem/dist/index.js');

/** A stdio server spec running `node <args>`. */
export function stdioServer(name: string, args: string[], more: Partial<McpServerSpec> = {}): McpServerSpec {
  return {
    name,
    transport: { kind: 'stdio', command: process.execPath, args, env: {} },
    startupTimeoutMs: 30_000,
    callTimeoutMs: 60_000,
    exposure: 'auto',
    annotations: 'trust',
    roots: false,
    ...more,
  };
}

/** An HTTP server spec. */
export function httpServer(name: string, url: string, headers: Record<string, string> = {}): McpServerSpec {
  return {
    name,
    transport: { kind: 'http', url, headers },
    startupTimeoutMs: 30_000,
    callTimeoutMs: 60_000,
    exposure: 'auto',
    annotations: 'trust',
    roots: false,
  };
}

/** A session config of `servers`. */
export function sessionConfig(servers: McpServerSpec[], more: Partial<McpSessionConfig> = {}): McpSessionConfig {
  return { servers, toolSearch: true, budget: DEFAULT_MCP_BUDGET, connections: 8, access: 'all', ...more };
}

export { freePort };

/** Starts the everything server in streamable HTTP mode; resolves once it listens. */
export async function startHttpEverything(port?: number): Promise<{ url: string; child: ChildProcess }> {
  port ??= await freePort();
  const child = spawn(process.execPath, [EVERYTHING, 'streamableHttp'], {
    env: { ...process.env, PORT: String(port) },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  await new Promise<void>((resolve, reject) => {
    let err = '';
    child.stderr!.on('data', (d: Buffer) => {
      err += d.toString();
      if (err.includes('listening on port')) resolve();
    });
    child.once('exit', (code) => reject(new Error(`HTTP server exited ${code}: ${err}`)));
  });
  return { url: `http://127.0.0.1:${port}/mcp`, child };
}

/** server-everything over stdio as server `everything`, with `more` applied. */
export function everythingSpec(more: Partial<McpServerSpec> = {}): McpServerSpec {
  return stdioServer('everything', [EVERYTHING, 'stdio'], more);
}

/**
 * The pid of the MCP server a stdio guard runs (activities/mcp/stdio-guard.mjs):
 * the guard's one child. Killing it is a server crash; killing the guard is not.
 * @throws when the guard has no child.
 */
export function serverUnder(guardPid: number): number {
  const children = readFileSync(`/proc/${guardPid}/task/${guardPid}/children`, 'utf8')
    .trim()
    .split(/\s+/)
    .filter(Boolean);
  if (children.length === 0) throw new Error(`guard ${guardPid} runs no server`);
  return Number(children[0]);
}

/** The pids of the stdio guards started by process `parent` (its children running stdio-guard.mjs). */
export function guardsOf(parent: number): number[] {
  const children = readFileSync(`/proc/${parent}/task/${parent}/children`, 'utf8').trim().split(/\s+/).filter(Boolean);
  return children.map(Number).filter((pid) => {
    try {
      return readFileSync(`/proc/${pid}/cmdline`, 'utf8').includes('stdio-guard.mjs');
    } catch {
      return false;
    }
  });
}
