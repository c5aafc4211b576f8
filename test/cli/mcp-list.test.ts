/**
 * `zuno mcp list` (issue 30 item 1; docs/mcp.md) against real MCP servers
 * installed from npm: `@modelcontextprotocol/server-everything` and
 * `@modelcontextprotocol/server-filesystem` over stdio, started from
 * node_modules (no npx), beside a command that does not exist, a server
 * that exits with an error of its own, an HTTP endpoint that refuses, and a
 * disabled server. The list is the report (exit 0), every stdio server has
 * exited when it ends, and a bad config exits 1 naming the key.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { freePort, ROOT } from '../helpers/dev-server.js';
import { expectNoStack, expectTypedFailure, makeHome, runZuno, tempDir, writeJson } from './helpers.js';

const EVERYTHING = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-everything', 'dist', 'index.js');
const FILESYSTEM = join(ROOT, 'node_modules', '@modelcontextprotocol', 'server-filesystem', 'dist', 'index.js');

/** Processes whose command line mentions `marker` (the servers this test started have it in their arguments). */
function processesWith(marker: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (readFileSync(`/proc/${entry}/cmdline`, 'utf8').includes(marker)) pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** A workspace whose zuno.json configures the servers below; `allowed` is the filesystem server's directory. */
async function workspace(): Promise<{ ws: string; allowed: string; refusedUrl: string }> {
  const ws = tempDir('zuno-mcp-list-ws-');
  const allowed = tempDir('zuno-mcp-list-files-');
  const refusedUrl = `http://127.0.0.1:${await freePort()}/mcp`;
  writeJson(ws, 'zuno.json', {
    mcp: {
      servers: {
        everything: { command: process.execPath, args: [EVERYTHING, 'stdio'], env: { LOG: '${MCP_TEST_LOG}' } },
        files: { command: process.execPath, args: [FILESYSTEM, allowed], exposure: 'deferred' },
        missing: { command: join(ws, 'no-such-mcp-server') },
        crashing: {
          command: process.execPath,
          args: ['-e', "process.stderr.write('boom: the tracker token was rejected\\n'); process.exit(3)"],
        },
        refusing: { url: refusedUrl, headers: { Authorization: 'Bearer ${MCP_TEST_TOKEN}' } },
        off: { command: join(ws, 'never-started'), enabled: false },
      },
    },
  });
  return { ws, allowed, refusedUrl };
}

const env = { MCP_TEST_LOG: 'value-that-never-shows', MCP_TEST_TOKEN: 'secret-that-never-shows' };

interface ListedTool {
  name: string;
  tool: string;
  effect: string;
  replay: string;
  concurrency: string;
}
interface Listed {
  name: string;
  enabled: boolean;
  exposure: string;
  status: string;
  error?: string;
  transport: Record<string, unknown>;
  tools: ListedTool[];
}

describe('zuno mcp list', () => {
  it('--json: connected servers with their tools, failed ones with their own error, the disabled one configured', async () => {
    const { home } = makeHome();
    const { ws, allowed, refusedUrl } = await workspace();
    const r = await runZuno(['mcp', 'list', '--dir', ws, '--json'], { home, env, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expectNoStack(r);
    expect(r.stdout).not.toContain('never-shows');
    const { servers } = JSON.parse(r.stdout) as { servers: Listed[] };
    expect(servers.map((s) => [s.name, s.status])).toEqual([
      ['everything', 'connected'],
      ['files', 'connected'],
      ['missing', 'failed'],
      ['crashing', 'failed'],
      ['refusing', 'failed'],
      ['off', 'configured'],
    ]);
    const [everything, files, missing, crashing, refusing, off] = servers as [
      Listed,
      Listed,
      Listed,
      Listed,
      Listed,
      Listed,
    ];
    expect(everything.transport).toEqual({
      kind: 'stdio',
      command: process.execPath,
      args: [EVERYTHING, 'stdio'],
      env: ['LOG'],
    });
    const tool = (s: Listed, name: string) => s.tools.find((t) => t.tool === name);
    // Classified from the server's own annotations (core/mcp/classify.ts).
    expect(tool(everything, 'echo')).toMatchObject({
      name: 'mcp__everything__echo',
      tool: 'echo',
      effect: 'ReadOnly',
      replay: 'Safe',
      concurrency: 'ParallelSafe',
    });
    expect(tool(everything, 'toggle-simulated-logging')).toMatchObject({ effect: 'SideEffecting', replay: 'Never' });
    expect(tool(everything, 'gzip-file-as-resource')).toMatchObject({
      effect: 'SideEffecting',
      replay: 'Safe',
      concurrency: 'Exclusive',
    });
    expect(files.exposure).toBe('deferred');
    expect(tool(files, 'read_text_file')).toMatchObject({ name: 'mcp__files__read_text_file', effect: 'ReadOnly' });
    expect(tool(files, 'move_file')).toMatchObject({ effect: 'SideEffecting', replay: 'Never' });
    expect(missing.error).toMatch(/ENOENT|no-such-mcp-server/);
    expect(crashing.error).toContain('boom: the tracker token was rejected');
    expect(refusing.transport).toEqual({ kind: 'http', url: refusedUrl, headers: ['Authorization'] });
    expect(refusing.error ?? '').not.toBe('');
    for (const s of [missing, crashing, refusing]) expect(s.tools).toEqual([]);
    expect(off).toMatchObject({ enabled: false, status: 'configured', tools: [] });
    // Every stdio server it started has exited (the filesystem server's directory is in its command line).
    expect(processesWith(allowed)).toEqual([]);
  });

  it('the human list: states, tools with effect and replay; exit 0 although servers failed', async () => {
    const { home } = makeHome();
    const { ws } = await workspace();
    const r = await runZuno(['mcp', 'list'], { home, env, cwd: ws, timeoutMs: 120_000 });
    expect(r.code, r.stderr).toBe(0);
    expectNoStack(r);
    const out = r.stdout;
    expect(out).toMatch(/^everything {2}enabled {2}exposure auto {2}stdio: \S+ \S+server-everything\S+ stdio$/m);
    expect(out).toMatch(/^ {2}connected: \d+ tools$/m);
    expect(out).toMatch(/^ {4}mcp__everything__echo +read-only +Safe$/m);
    expect(out).toMatch(/^ {4}mcp__everything__toggle-simulated-logging +changes things +Never$/m);
    expect(out).toMatch(/^ {2}failed: .*boom: the tracker token was rejected/m);
    expect(out).toMatch(/^refusing {2}enabled {2}exposure auto {2}http: http:\/\/127\.0\.0\.1:\d+\/mcp$/m);
    expect(out).toMatch(
      /^off {2}disabled {2}exposure auto {2}stdio: .*never-started\n {2}configured \(disabled: not started\)$/m,
    );
    expect(out).not.toContain('never-shows');
  });

  it('a bad config exits 1 naming the key; no servers is said plainly', async () => {
    const { home } = makeHome();
    const ws = tempDir('zuno-mcp-list-bad-');
    writeJson(ws, 'zuno.json', { mcp: { servers: { everything: { args: ['-y', 'x'] } } } });
    const bad = await runZuno(['mcp', 'list', '--dir', ws], { home });
    expect(expectTypedFailure(bad, 'config_invalid')).toContain(
      'mcp.servers.everything: needs "command" (a stdio server) or "url" (a streamable HTTP server)',
    );
    const other = writeJson(tempDir('zuno-mcp-list-cfg-'), 'other.json', {
      mcp: { servers: { tracker: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } } } },
    });
    const secret = await runZuno(['mcp', 'list', '--dir', ws, '--config', other, '--json'], { home });
    expect(expectTypedFailure(secret, 'config_invalid')).toContain(
      'mcp.servers.tracker.headers.Authorization: looks like a secret',
    );
    const empty = tempDir('zuno-mcp-list-empty-');
    const none = await runZuno(['mcp', 'list', '--dir', empty], { home });
    expect(none.code, none.stderr).toBe(0);
    expect(none.stdout).toContain('no MCP servers configured');
    const noneJson = await runZuno(['mcp', 'list', '--dir', empty, '--json'], { home });
    expect(JSON.parse(noneJson.stdout)).toEqual({ servers: [] });
  });
});
