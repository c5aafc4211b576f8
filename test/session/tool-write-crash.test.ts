import { existsSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import type { Script } from '../../local-provider/script.js';
import { createProcessHarness, resultWithin, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

const cleanups = useCleanups();

const READS_PER_STEP = 10;
const PATCH_STEPS = 3;
/** Read steps that also run a `sleep` shell call (replay Never): a call that stays running for seconds. */
const SLEEP_STEPS = 3;

/**
 * 3 steps of 9 reads, a grep and a `sleep 2` shell call, 3 steps of one
 * `apply_patch` (replay Never) each, 3 steps of 9 reads and a grep, then an
 * answer. The grep scans a generated tree (a Safe call running tens of ms);
 * the sleep is a call that stays running for seconds whatever the machine's
 * load, so a kill that follows a `running` row lands between two writes.
 */
function script(): Script {
  const reads = (from: number, sleep = false) => ({
    toolCalls: [
      ...Array.from({ length: READS_PER_STEP - 1 }, (_, i) => ({
        name: 'read',
        arguments: { path: `src/f${(from + i) % 5}.ts` },
      })),
      { name: 'grep', arguments: { pattern: 'no_such_token_anywhere', path: 'big' } },
      ...(sleep ? [{ name: 'shell', arguments: { command: 'sleep 2' } }] : []),
    ],
  });
  const patch = (i: number) => ({
    toolCalls: [
      {
        name: 'apply_patch',
        arguments: {
          patch: ['*** Begin Patch', `*** Add File: gen/p${i}.txt`, `+patch ${i}`, '*** End Patch'].join('\n'),
        },
      },
    ],
  });
  return {
    replies: [
      reads(0, true),
      reads(10, true),
      reads(20, true),
      ...Array.from({ length: PATCH_STEPS }, (_, i) => patch(i)),
      reads(30),
      reads(40),
      reads(50),
      { text: 'All read.' },
    ],
  };
}

/**
 * Issue 13: a tool call is recorded by two writes — the `running` batch when
 * its activity starts and the completion batch (row, result part,
 * `tool.completed`) when it ends. Worker processes SIGKILLed again and
 * again while tool calls run — so kills land before, between and after those
 * writes — leave no half-written record: every call ends with ONE completed
 * row, ONE result part saying what the row says and ONE `tool.completed`; a
 * Safe read retried by the next worker is recorded once; a replay-Never
 * patch is never applied twice (an interrupted one is settled uncertain).
 */
it('workers killed between the two writes of tool calls leave no half-written record and no duplicate', async () => {
  const { h, spawnWorker } = await createProcessHarness('zuno-write-crash', cleanups);
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-write-crash-ws-'));
  mkdirSync(join(workspace, 'src'));
  for (let i = 0; i < 5; i++) writeFileSync(join(workspace, 'src', `f${i}.ts`), `export const v${i} = ${i};\n`);
  const filler = 'lorem ipsum dolor sit amet consectetur adipiscing elit\n'.repeat(150);
  for (let d = 0; d < 20; d++) {
    mkdirSync(join(workspace, 'big', `d${d}`), { recursive: true });
    for (let f = 0; f < 50; f++) writeFileSync(join(workspace, 'big', `d${d}`, `${f}.txt`), filler);
  }
  let worker = spawnWorker();
  const run = await h.startScripted({
    workspace,
    prompt: 'read everything',
    // One lane fewer than a step's reads: the reads run as regular activities (a local read is one
    // write, issue 13 v2), so kills can land between a call's two writes.
    toolConcurrency: READS_PER_STEP - 1,
    activityDefaults: {
      ...DEFAULT_ACTIVITY_DEFAULTS,
      model: { ...DEFAULT_ACTIVITY_DEFAULTS.model, heartbeatTimeoutMs: 3_000 },
      tool: { startToCloseTimeoutMs: 60_000, heartbeatTimeoutMs: 2_000 },
      safeRetry: { ...DEFAULT_ACTIVITY_DEFAULTS.safeRetry, initialIntervalMs: 100 },
    },
    script: script(),
  });
  const running = async () =>
    (await h.store.loadTranscript(run.sessionId))!.toolCalls.filter((c) => c.status === 'running');
  const kills: string[] = [];
  /** Calls a kill caught between their two writes: `running` in the projection right after the worker died. */
  const caught = new Set<string>();
  // Kill whenever a call has written its `running` batch and not yet its completion, until a kill has
  // landed there; a random few ms more vary which of a step's other calls are caught too.
  for (let k = 0; k < 8 && caught.size === 0; k++) {
    const seen = await waitFor(
      async () => {
        // A read that meets the worker's write lock fails now and then: poll again rather than end the kills.
        const rows = await running().catch(() => []);
        return rows.length > 0 ? rows.length : null;
      },
      90_000,
      'a tool call to be running',
    ).catch(() => null);
    if (seen === null) break; // the session ran out of calls first
    const delayMs = Math.floor(Math.random() * 10);
    await new Promise((r) => setTimeout(r, delayMs));
    await worker.crash();
    const between = await running();
    for (const c of between) caught.add(c.id);
    kills.push(`after ${seen} running + ${delayMs} ms: ${between.length} running`);
    worker = spawnWorker();
  }
  const result = await resultWithin(run, worker, 150_000);
  await run.closeProvider();
  expect(result.status, `kills: ${kills.join('; ')}`).toBe('completed');
  expect(caught.size, `kills: ${kills.join('; ')}`).toBeGreaterThan(0);

  const t = (await h.store.loadTranscript(run.sessionId))!;
  const events = await h.store.listEvents(run.sessionId, 0, 5000);
  const partIds = t.parts.map((p) => p.id);
  expect(new Set(partIds).size).toBe(partIds.length);
  expect(t.toolCalls).toHaveLength(6 * READS_PER_STEP + PATCH_STEPS + SLEEP_STEPS);
  for (const row of t.toolCalls) {
    const where = `${row.id} (${row.tool}; kills: ${kills.join('; ')})`;
    expect(row.status, where).toBe('completed');
    const results = t.parts.filter((p) => p.kind === 'tool_result' && p.toolCallId === row.id);
    const completed = events.filter((e) => e.type === 'tool.completed' && e.data.rowId === row.id);
    expect(completed, where).toHaveLength(1);
    if (row.result?.settledBy === 'workflow') {
      // Settled by the workflow (a lost Never call): the row holds the uncertain record, no result part.
      expect(row.outcome, where).toBe('uncertain');
      expect(results, where).toHaveLength(0);
    } else {
      expect(results, where).toHaveLength(1);
      expect(results[0]!.text, where).toBe(row.output);
      expect(completed[0]!.data.outcome, where).toBe(row.outcome);
    }
    // Each attempt started once at most.
    const attempts = events
      .filter((e) => e.type === 'tool.started' && e.data.rowId === row.id)
      .map((e) => e.data.attempt);
    expect(new Set(attempts).size, where).toBe(attempts.length);
    if (row.tool === 'read' || row.tool === 'grep') expect(row.outcome, where).toBe('ok');
    if (row.tool === 'apply_patch' || row.tool === 'shell') {
      // Never re-run: an applied patch or finished sleep is ok, a lost one uncertain — never a second run.
      expect(['ok', 'uncertain'], where).toContain(row.outcome);
      expect(row.attempts ?? 1, where).toBe(1);
    }
  }
  for (let i = 0; i < PATCH_STEPS; i++) {
    const row = t.toolCalls.filter((c) => c.tool === 'apply_patch')[i]!;
    if (row.outcome === 'ok') expect(existsSync(join(workspace, 'gen', `p${i}.txt`))).toBe(true);
  }
  await worker.stop();
}, 300_000);
