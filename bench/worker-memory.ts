/**
 * Worker memory per idle cached session (issue 13 item 5; prints figures,
 * asserts nothing). Zuno's worker in a process of its own (`zuno worker`);
 * N sessions started with `exitWhenIdle: false`, each one short turn (a
 * `read`, an answer), then left idle — open workflows the worker keeps in
 * its workflow cache until evicted. RSS and main-thread heap (after a GC) of
 * the worker before any, after the first 100 and after all N; MiB per idle
 * session from the differences. Cached workflows live in the workflow
 * thread's V8 isolate: they show in RSS, not in the main thread's heap.
 *
 *   npx tsx bench/worker-memory.ts [--sessions 1000]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { SessionState } from '../core/session/state.js';
import type { Harness } from '../test/helpers/harness.js';
import { badArgument, benchFlags, runBench, zunoBench } from './worker-procs.js';

const flags = benchFlags('usage: npx tsx bench/worker-memory.ts [--sessions 1000 (≥ 200)]', {
  sessions: { type: 'string', default: '1000' },
});
const N = Number(flags.sessions);
if (!Number.isInteger(N) || N < 200) badArgument('--sessions must be an integer ≥ 200');
const FIRST = 100;
const AT_ONCE = 20;

/** Starts one session that reads a file, answers and stays open; resolves once it is idle (its provider closed). */
async function idleSession(h: Harness, workspace: string): Promise<void> {
  const s = await h.startScripted({
    workspace,
    prompt: 'read a.txt',
    exitWhenIdle: false,
    script: { replies: [{ toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'It says alpha.' }] },
  });
  try {
    const handle = h.client.workflow.getHandle(s.workflowId);
    for (;;) {
      const state = await handle.query<SessionState>('state');
      if (state.phase === 'idle' && state.lastOutcome !== null) return;
      await sleep(100);
    }
  } finally {
    await s.closeProvider();
  }
}

async function idleSessions(h: Harness, workspace: string, count: number): Promise<void> {
  let next = 0;
  const lane = async () => {
    while (next < count) {
      next++;
      await idleSession(h, workspace);
    }
  };
  await Promise.all(Array.from({ length: AT_ONCE }, lane));
}

const r2 = (x: number) => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const { root, h, worker, close } = await zunoBench('memory');
  try {
    const workspace = join(root, 'ws');
    mkdirSync(workspace);
    writeFileSync(join(workspace, 'a.txt'), 'alpha\n');
    // Warm-up: a session that ends (the bundle loaded, Prisma ready); it leaves nothing cached.
    const warm = await h.startScripted({
      workspace,
      prompt: 'read a.txt',
      script: { replies: [{ toolCalls: [{ name: 'read', arguments: { path: 'a.txt' } }] }, { text: 'alpha' }] },
    });
    await warm.result().finally(() => warm.closeProvider());
    const base = await worker.memory();
    await idleSessions(h, workspace, FIRST);
    const first = await worker.memory();
    await idleSessions(h, workspace, N - FIRST);
    const all = await worker.memory();
    console.log(`\nZuno worker memory against idle cached sessions (worker in its own process, after a GC)`);
    for (const [label, m] of [
      ['no session', base],
      [`${FIRST} idle sessions`, first],
      [`${N} idle sessions`, all],
    ] as const)
      console.log(`worker with ${label}, MB: RSS ${r2(m.rss)}, main-thread heap ${r2(m.heapUsed)}`);
    console.log(`MiB RSS per idle session, first ${FIRST}: ${r2((first.rss - base.rss) / FIRST)}`);
    console.log(`MiB RSS per idle session, ${FIRST}→${N}: ${r2((all.rss - first.rss) / (N - FIRST))}`);
  } finally {
    await close();
  }
}

await runBench(main);
