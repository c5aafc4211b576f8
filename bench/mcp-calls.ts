/**
 * What an MCP tool costs (issue 30; prints figures, asserts nothing):
 * - the start of one stdio server for a session (guard + server-everything:
 *   spawn, `initialize`, first `tools/list`), through the worker's hub;
 * - one `echo` call through the hub alone (a JSON-RPC round trip);
 * - the same calls through the whole stack: scripted sessions on a real
 *   Temporal dev server (temp dir) whose steps call `mcp__everything__echo`,
 *   against the same number of `read` calls (a built-in ReadOnly tool) in
 *   sessions with and without the server configured, per call of wall time.
 *
 *   npx tsx bench/mcp-calls.ts --starts 5 --calls 200 --sessions 3 --session-calls 20
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { createMcpHub } from '../activities/mcp/index.js';
import { createHarness, type Harness } from '../test/helpers/harness.js';
import { startTestDevServer } from '../test/helpers/dev-server.js';
import { everythingSpec, sessionConfig } from '../test/mcp/helpers.js';
import { badArgument, benchFlags } from './worker-procs.js';

const HELP = `usage: npx tsx bench/mcp-calls.ts [options]

  --starts <N>          server starts measured (default 5)
  --calls <N>           echo calls through the hub alone (default 200)
  --sessions <N>        scripted sessions per tool (default 3)
  --session-calls <K>   calls per session, 5 per model step (default 20)
  -h, --help            show this help`;

const flags = benchFlags(HELP, {
  starts: { type: 'string', default: '5' },
  calls: { type: 'string', default: '200' },
  sessions: { type: 'string', default: '3' },
  'session-calls': { type: 'string', default: '20' },
});
function positiveInt(name: keyof typeof flags): number {
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < 1) badArgument(`--${name} must be a positive integer (got ${flags[name]})`);
  return n;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const p95 = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.min(xs.length - 1, Math.floor(xs.length * 0.95))]!;
const round = (x: number) => Math.round(x * 100) / 100;
const ws = mkdtempSync(join(tmpdir(), 'zuno-bench-mcp-'));
writeFileSync(join(ws, 'a.txt'), 'hello\n');

/** Server starts and hub-only echo calls, in ms. */
async function hubFigures(starts: number, calls: number): Promise<{ start: number[]; call: number[] }> {
  const hub = createMcpHub();
  const start: number[] = [];
  const call: number[] = [];
  const config = sessionConfig([everythingSpec()]);
  for (let i = 0; i < starts; i++) {
    const ref = { sessionId: `bench-start-${i}`, workspace: ws, config };
    const t0 = performance.now();
    await hub.catalog(ref);
    start.push(performance.now() - t0);
    if (i < starts - 1) await hub.closeSession(ref.sessionId);
  }
  const ref = { sessionId: `bench-start-${starts - 1}`, workspace: ws, config };
  for (let i = 0; i < calls; i++) {
    const t0 = performance.now();
    await hub.call(ref, { server: 'everything', tool: 'echo' }, { message: `m${i}` }, {});
    call.push(performance.now() - t0);
  }
  await hub.closeAll();
  return { start, call };
}

/** Wall ms per call of `sessions` scripted sessions each making `k` calls of `tool`, 5 per step. */
async function sessionFigure(
  h: Harness,
  tool: 'mcp' | 'read',
  sessions: number,
  k: number,
  withMcp = true,
): Promise<number> {
  const call = (i: number) =>
    tool === 'mcp'
      ? { name: 'mcp__everything__echo', arguments: { message: `m${i}` } }
      : { name: 'read', arguments: { path: 'a.txt' } };
  const steps = Array.from({ length: Math.ceil(k / 5) }, (_, s) => ({
    toolCalls: Array.from({ length: Math.min(5, k - s * 5) }, (_, j) => call(s * 5 + j)),
  }));
  let total = 0;
  for (let i = 0; i < sessions; i++) {
    const t0 = performance.now();
    const run = await h.runSession({
      workspace: ws,
      prompt: `bench ${tool} ${i}`,
      ...(withMcp ? { mcp: sessionConfig([everythingSpec()]) } : {}),
      script: { replies: [...steps, { text: 'done' }] },
    });
    if (run.result.status !== 'completed') throw new Error(`session ${run.sessionId} ended ${run.result.status}`);
    total += performance.now() - t0;
  }
  return total / (sessions * k);
}

const dir = mkdtempSync(join(tmpdir(), 'zuno-bench-mcp-temporal-'));
const server = await startTestDevServer(join(dir, 'temporal.db'));
try {
  const { start, call } = await hubFigures(positiveInt('starts'), positiveInt('calls'));
  const h = await createHarness({ address: server.address });
  const sessions = positiveInt('sessions');
  const k = positiveInt('session-calls');
  await sessionFigure(h, 'mcp', 1, 5); // warm the worker (bundle, caches) before measuring
  const mcp = await sessionFigure(h, 'mcp', sessions, k);
  const read = await sessionFigure(h, 'read', sessions, k);
  const bare = await sessionFigure(h, 'read', sessions, k, false);
  await h.close();
  console.log('MCP tool cost (server-everything over stdio)');
  console.log(
    `  server start (guard + spawn + initialize + tools/list), ms: median ${round(median(start))}, p95 ${round(p95(start))} (n=${start.length})`,
  );
  console.log(
    `  echo through the hub alone, ms/call: median ${round(median(call))}, p95 ${round(p95(call))} (n=${call.length})`,
  );
  console.log(
    `  session wall, ms/call (${sessions} sessions x ${k} calls, 5 per step; an MCP session starts its server):`,
  );
  console.log(
    `    mcp__everything__echo ${round(mcp)}; read, same sessions ${round(read)}; read, no MCP server ${round(bare)}`,
  );
  console.log(`    ratios: echo/read ${round(mcp / read)}x; read with/without the server ${round(read / bare)}x`);
} finally {
  await server.kill();
  rmSync(dir, { recursive: true, force: true });
  rmSync(ws, { recursive: true, force: true });
}
