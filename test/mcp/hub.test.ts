/**
 * The worker's MCP hub against real MCP servers others wrote
 * (`@modelcontextprotocol/server-everything` over stdio and streamable HTTP,
 * `@modelcontextprotocol/server-filesystem`): catalog, wire names and facts,
 * list-change revisions, calls with progress, failures in the servers' own
 * words, a crashed server's reconnect, lost calls, one process per session.
 */
import type { ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHub, McpCallError } from '../../activities/mcp/index.js';
import type { McpServerStatus, McpSessionRef } from '../../activities/mcp/types.js';
import type { McpSessionConfig } from '../../core/mcp/types.js';
import {
  EVERYTHING,
  FILESYSTEM,
  freePort,
  httpServer,
  sessionConfig,
  startHttpEverything,
  serverUnder,
  stdioServer,
} from './helpers.js';

const hub = createMcpHub();
const workspace = mkdtempSync(join(tmpdir(), 'zuno-mcp-ws-'));
let n = 0;

/** A fresh session of `config`. */
function session(config: McpSessionConfig, ws = workspace): McpSessionRef {
  return { sessionId: `ses_mcp_${process.pid}_${n++}`, workspace: ws, config };
}

const everything = (roots = false) => stdioServer('everything', [EVERYTHING, 'stdio'], { roots });

function server(statuses: McpServerStatus[], name: string): McpServerStatus {
  const s = statuses.find((x) => x.name === name);
  if (!s) throw new Error(`no status for ${name}`);
  return s;
}

/** Resolves once process `pid` no longer exists. */
async function gone(pid: number): Promise<void> {
  for (;;) {
    try {
      process.kill(pid, 0);
    } catch {
      return;
    }
    await new Promise((r) => setTimeout(r, 20));
  }
}

/** The text of an answer's text blocks. */
function text(answer: { content: Array<Record<string, unknown>> }): string {
  return answer.content.map((b) => (b.type === 'text' ? String(b.text) : '')).join('\n');
}

afterAll(async () => {
  await hub.closeAll();
  rmSync(workspace, { recursive: true, force: true });
});

describe('MCP hub over stdio (server-everything)', () => {
  // Offered the workspace as its root: server-everything then registers get-roots-list (a list change).
  const ref = session(sessionConfig([everything(true)]));

  it('lists the tools with wire names and facts from their annotations, revision 1', async () => {
    const [s] = await hub.catalog(ref);
    expect(s!.status).toBe('connected');
    expect(s!.revision).toBe(1);
    const byTool = new Map(s!.tools.map((t) => [t.tool, t]));
    expect(byTool.get('echo')).toMatchObject({
      name: 'mcp__everything__echo',
      server: 'everything',
      facts: { effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' },
    });
    expect(byTool.get('toggle-simulated-logging')!.facts).toMatchObject({ effect: 'SideEffecting', replay: 'Never' });
    expect(byTool.get('gzip-file-as-resource')!.facts).toMatchObject({ effect: 'SideEffecting', replay: 'Safe' });
    expect(byTool.get('echo')!.inputSchema).toMatchObject({ type: 'object' });
  });

  it('applies the tools/list_changed the server sent after initialize at the next catalog: a new revision', async () => {
    const [s] = await hub.catalog(ref);
    expect(s!.revision).toBe(2);
    // Registered after initialize because the client declared roots (the server's config asked for them).
    expect(s!.tools.map((t) => t.tool)).toContain('get-roots-list');
    const [again] = await hub.catalog(ref);
    expect(again!.revision).toBe(2);
  });

  it('answers roots/list with the session workspace', async () => {
    const answer = await hub.call(ref, { server: 'everything', tool: 'get-roots-list' }, {}, {});
    expect(text(answer)).toContain(`file://${workspace}`);
  });

  it('calls echo', async () => {
    const answer = await hub.call(ref, { server: 'everything', tool: 'echo' }, { message: 'hello hub' }, {});
    expect(answer.isError).toBe(false);
    expect(text(answer)).toBe('Echo: hello hub');
  });

  it('passes progress notifications of a long-running call to onProgress', async () => {
    const seen: { progress: number; total?: number }[] = [];
    const answer = await hub.call(
      ref,
      { server: 'everything', tool: 'trigger-long-running-operation' },
      { duration: 1, steps: 4 },
      { onProgress: (p) => seen.push(p) },
    );
    expect(text(answer)).toContain('Long running operation completed');
    // The SDK drops a notification that arrives after the answer: the last step's may be missing.
    expect(seen.length).toBeGreaterThanOrEqual(2);
    expect(seen[0]).toMatchObject({ progress: 1, total: 4 });
    expect(seen.map((p) => p.progress)).toEqual([...seen.keys()].map((i) => i + 1));
  });

  it('refuses a tool the server does not list as unavailable, and a JSON-RPC error as failed', async () => {
    const missing = await hub.call(ref, { server: 'everything', tool: 'no-such-tool' }, {}, {}).catch((e) => e);
    expect(missing).toBeInstanceOf(McpCallError);
    expect((missing as McpCallError).kind).toBe('unavailable');
    const nobody = await hub.call(ref, { server: 'nobody', tool: 'echo' }, {}, {}).catch((e) => e);
    expect((nobody as McpCallError).kind).toBe('unavailable');
  });

  it('a call past its limit is lost (sent, no answer)', async () => {
    const slow = session(sessionConfig([{ ...everything(), callTimeoutMs: 300 }]));
    const err = await hub
      .call(slow, { server: 'everything', tool: 'trigger-long-running-operation' }, { duration: 5, steps: 5 }, {})
      .catch((e) => e);
    expect(err).toBeInstanceOf(McpCallError);
    expect((err as McpCallError).kind).toBe('lost');
    await hub.closeSession(slow.sessionId);
  });

  it('a crashed server: the next call is disconnected (nothing sent), the call after reconnects', async () => {
    const crash = session(sessionConfig([everything()]));
    await hub.catalog(crash);
    const pid = hub.pidOf(crash.sessionId, 'everything');
    expect(pid).toBeGreaterThan(0);
    const server = serverUnder(pid!);
    process.kill(server, 'SIGKILL'); // the server crashes; its guard follows it
    await gone(server);
    await gone(pid!);
    const err = await hub.call(crash, { server: 'everything', tool: 'echo' }, { message: 'x' }, {}).catch((e) => e);
    expect(err).toBeInstanceOf(McpCallError);
    expect((err as McpCallError).kind).toBe('disconnected');
    const answer = await hub.call(crash, { server: 'everything', tool: 'echo' }, { message: 'back' }, {});
    expect(text(answer)).toBe('Echo: back');
    const again = hub.pidOf(crash.sessionId, 'everything');
    expect(again).not.toBe(pid);
    const [s] = await hub.catalog(crash);
    expect(s!.status).toBe('connected');
    expect(s!.revision).toBeGreaterThan(1);
    await hub.closeSession(crash.sessionId);
  });

  it('a server killed mid-call: that call is lost', async () => {
    const mid = session(sessionConfig([everything()]));
    await hub.catalog(mid);
    const server = serverUnder(hub.pidOf(mid.sessionId, 'everything')!);
    const call = hub
      .call(
        mid,
        { server: 'everything', tool: 'trigger-long-running-operation' },
        { duration: 10, steps: 10 },
        {
          onProgress: () => process.kill(server, 'SIGKILL'),
        },
      )
      .catch((e) => e);
    const err = await call;
    expect((err as McpCallError).kind).toBe('lost');
    const [s] = await hub.catalog(mid);
    expect(s!.status).toBe('connected');
    await hub.closeSession(mid.sessionId);
  });

  it('two sessions get two server processes; closing one session ends its process only', async () => {
    const a = session(sessionConfig([everything()]));
    const b = session(sessionConfig([everything()]));
    await Promise.all([hub.catalog(a), hub.catalog(b)]);
    const pa = hub.pidOf(a.sessionId, 'everything')!;
    const pb = hub.pidOf(b.sessionId, 'everything')!;
    expect(pa).toBeGreaterThan(0);
    expect(pb).toBeGreaterThan(0);
    expect(pa).not.toBe(pb);
    await hub.closeSession(a.sessionId);
    await gone(pa);
    expect(() => process.kill(pb, 0)).not.toThrow();
    await hub.closeSession(b.sessionId);
    await gone(pb);
  });

  it('concurrent catalogs of a session share one connection and one listing per change', async () => {
    const ref2 = session(sessionConfig([everything()]));
    const first = await Promise.all([hub.catalog(ref2), hub.catalog(ref2)]);
    expect(first.map(([s]) => s!.revision)).toEqual([1, 1]);
    const second = await Promise.all([hub.catalog(ref2), hub.catalog(ref2)]);
    expect(second.map(([s]) => s!.revision)).toEqual([2, 2]);
    await hub.closeSession(ref2.sessionId);
  });

  it('at most `connections` requests of a session run at once', async () => {
    const one = session(sessionConfig([everything()], { connections: 1 }));
    await hub.catalog(one);
    const order: string[] = [];
    const slow = hub
      .call(one, { server: 'everything', tool: 'trigger-long-running-operation' }, { duration: 1, steps: 2 }, {})
      .then(() => order.push('slow'));
    const fast = hub
      .call(one, { server: 'everything', tool: 'echo' }, { message: 'q' }, {})
      .then(() => order.push('fast'));
    await Promise.all([slow, fast]);
    // With one place, the echo waited for the long call although it answers at once.
    expect(order).toEqual(['slow', 'fast']);
    await hub.closeSession(one.sessionId);
  });
});

describe('MCP hub failures in the servers own words', () => {
  it('a missing command fails that server with the spawn error; the other server of the session connects', async () => {
    const ref = session(
      sessionConfig([
        {
          ...everything(),
          transport: { kind: 'stdio', command: 'zuno-no-such-mcp-server', args: [], env: {} },
          name: 'ghost',
        },
        everything(),
      ]),
    );
    const statuses = await hub.catalog(ref);
    expect(server(statuses, 'ghost')).toMatchObject({ status: 'failed', tools: [], revision: 0 });
    expect(server(statuses, 'ghost').error).toMatch(/ENOENT/);
    expect(server(statuses, 'everything').status).toBe('connected');
    const err = await hub.call(ref, { server: 'ghost', tool: 'echo' }, {}, {}).catch((e) => e);
    expect((err as McpCallError).kind).toBe('unavailable');
    await hub.closeSession(ref.sessionId);
  });

  it('a server that exits at start fails with its stderr', async () => {
    const ref = session(sessionConfig([stdioServer('bad', [EVERYTHING, 'no-such-transport'])]));
    const [s] = await hub.catalog(ref);
    expect(s!.status).toBe('failed');
    expect(s!.error).toContain('Unknown transport: no-such-transport');
  });

  it('a server that never answers initialize fails at its startup limit', async () => {
    const silent = stdioServer('silent', ['-e', 'setInterval(() => {}, 1000)'], { startupTimeoutMs: 500 });
    const ref = session(sessionConfig([silent]));
    const [s] = await hub.catalog(ref);
    expect(s!.status).toBe('failed');
    expect(s!.error).toContain('did not start within 500 ms');
  });

  it('a session unused for the idle limit has its connections closed; its next use reconnects', async () => {
    const idleHub = createMcpHub({ idleCloseMs: 200 });
    const ref = session(sessionConfig([everything()]));
    try {
      await idleHub.catalog(ref);
      const pid = idleHub.pidOf(ref.sessionId, 'everything')!;
      await gone(pid);
      expect(idleHub.pidOf(ref.sessionId, 'everything')).toBeNull();
      const answer = await idleHub.call(ref, { server: 'everything', tool: 'echo' }, { message: 'awake' }, {});
      expect(text(answer)).toBe('Echo: awake');
    } finally {
      await idleHub.closeAll();
    }
  });

  it('an HTTP server that refuses (a closed port) fails', async () => {
    const port = await freePort();
    const ref = session(sessionConfig([httpServer('refusing', `http://127.0.0.1:${port}/mcp`)]));
    const [s] = await hub.catalog(ref);
    expect(s!.status).toBe('failed');
    expect(s!.error).toMatch(/ECONNREFUSED|fetch failed/);
  });

  it('a header template naming an unset variable fails the server naming the variable', async () => {
    delete process.env.ZUNO_TEST_MCP_MISSING;
    const ref = session(
      sessionConfig([
        httpServer('secret', 'http://127.0.0.1:9/mcp', { Authorization: 'Bearer ${ZUNO_TEST_MCP_MISSING}' }),
      ]),
    );
    const [s] = await hub.catalog(ref);
    expect(s!.status).toBe('failed');
    expect(s!.error).toContain('ZUNO_TEST_MCP_MISSING');
    expect(s!.error).toContain('header Authorization');
  });

  it('a template resolves from the home credentials file when the hub has a state directory', async () => {
    const home = mkdtempSync(join(tmpdir(), 'zuno-mcp-home-'));
    delete process.env.ZUNO_TEST_MCP_STORED;
    writeFileSync(join(home, 'credentials.json'), JSON.stringify({ ZUNO_TEST_MCP_STORED: 'stored-1' }));
    const homeHub = createMcpHub({ stateDir: home });
    const spec = stdioServer('everything', [EVERYTHING, 'stdio']);
    if (spec.transport.kind === 'stdio') spec.transport.env = { FROM_HOME: '${ZUNO_TEST_MCP_STORED}' };
    const ref = session(sessionConfig([spec]));
    try {
      const answer = await homeHub.call(ref, { server: 'everything', tool: 'get-env' }, {}, {});
      expect((JSON.parse(text(answer)) as Record<string, string>).FROM_HOME).toBe('stored-1');
    } finally {
      await homeHub.closeAll();
      delete process.env.ZUNO_TEST_MCP_STORED;
      rmSync(home, { recursive: true, force: true });
    }
  });

  it('an env template resolves from the worker environment (the server sees the value)', async () => {
    process.env.ZUNO_TEST_MCP_TOKEN = 'tok-123';
    const spec = {
      ...everything(),
      transport: { ...everything().transport, env: { MY_TOKEN: 'x-${ZUNO_TEST_MCP_TOKEN}' } },
    };
    const ref = session(sessionConfig([spec as ReturnType<typeof everything>]));
    const answer = await hub.call(ref, { server: 'everything', tool: 'get-env' }, {}, {});
    const env = JSON.parse(text(answer)) as Record<string, string>;
    expect(env.MY_TOKEN).toBe('x-tok-123');
    // The minimal inherited environment, not the worker's whole one.
    expect(env.ZUNO_TEST_MCP_TOKEN).toBeUndefined();
    await hub.closeSession(ref.sessionId);
  });
});

describe('MCP hub over streamable HTTP (server-everything)', () => {
  let http: { url: string; child: ChildProcess };
  beforeAll(async () => {
    http = await startHttpEverything();
  });
  afterAll(() => {
    http?.child.kill('SIGTERM');
  });

  it('a stopped endpoint: the next call is disconnected, the call after reconnects to the restarted server', async () => {
    const own = await startHttpEverything();
    const ref = session(sessionConfig([httpServer('web', own.url)]));
    await hub.catalog(ref);
    own.child.kill('SIGKILL');
    await gone(own.child.pid!);
    const err = await hub.call(ref, { server: 'web', tool: 'echo' }, { message: 'x' }, {}).catch((e) => e);
    expect(err).toBeInstanceOf(McpCallError);
    expect((err as McpCallError).kind).toBe('disconnected');
    const again = await startHttpEverything(Number(new URL(own.url).port));
    try {
      const answer = await hub.call(ref, { server: 'web', tool: 'echo' }, { message: 'restarted' }, {});
      expect(text(answer)).toBe('Echo: restarted');
    } finally {
      await hub.closeSession(ref.sessionId);
      again.child.kill('SIGTERM');
    }
  });

  it('lists and calls', async () => {
    const ref = session(sessionConfig([httpServer('web', http.url)]));
    const [s] = await hub.catalog(ref);
    expect(s!.status).toBe('connected');
    expect(s!.tools.map((t) => t.name)).toContain('mcp__web__echo');
    const answer = await hub.call(ref, { server: 'web', tool: 'echo' }, { message: 'over http' }, {});
    expect(text(answer)).toBe('Echo: over http');
    await hub.closeSession(ref.sessionId);
  });
});

describe('MCP hub with server-filesystem limited to a temp directory', () => {
  const root = mkdtempSync(join(tmpdir(), 'zuno-mcp-fs-'));
  const outside = mkdtempSync(join(tmpdir(), 'zuno-mcp-out-'));
  afterAll(() => {
    rmSync(root, { recursive: true, force: true });
    rmSync(outside, { recursive: true, force: true });
  });

  it('lists and reads inside; a path outside is the server’s own error', async () => {
    mkdirSync(join(root, 'sub'));
    writeFileSync(join(root, 'sub', 'note.txt'), 'inside text');
    writeFileSync(join(outside, 'secret.txt'), 'outside text');
    const ref = session(sessionConfig([stdioServer('fs', [FILESYSTEM, root])]), root);
    const [s] = await hub.catalog(ref);
    expect(s!.status).toBe('connected');
    expect(s!.tools.map((t) => t.tool)).toEqual(expect.arrayContaining(['list_directory', 'read_text_file']));
    const list = await hub.call(ref, { server: 'fs', tool: 'list_directory' }, { path: root }, {});
    expect(text(list)).toContain('[DIR] sub');
    const read = await hub.call(
      ref,
      { server: 'fs', tool: 'read_text_file' },
      { path: join(root, 'sub', 'note.txt') },
      {},
    );
    expect(text(read)).toBe('inside text');
    const denied = await hub.call(
      ref,
      { server: 'fs', tool: 'read_text_file' },
      { path: join(outside, 'secret.txt') },
      {},
    );
    expect(denied.isError).toBe(true);
    expect(text(denied)).toMatch(/Access denied|outside allowed/i);
    expect(text(denied)).not.toContain('outside text');
    await hub.closeSession(ref.sessionId);
  });
});
