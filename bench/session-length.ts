/**
 * `modelStep` cost against session length (issue 13 item 3; prints figures,
 * asserts nothing). One session, one turn of S model steps, each asking for
 * P `read` calls, so the request of step k carries 1 + (P + 1)·k messages;
 * Zuno's worker in a process of its own (`zuno worker`). The cost of a step
 * is its modelStep activity's span in the Temporal history (started →
 * completed: transcript assembly, the provider round trip, the step's
 * writes), taken as the median over 5 steps around 10, 100 and 1 000 prior
 * messages; the ratio at 1 000 vs 10 is printed last. The transcript cache
 * is warm here (one worker runs the whole session); a cold cache is a
 * worker restart, measured by the tests in test/projection/hot-path.test.ts
 * only for its statement count.
 *
 *   npx tsx bench/session-length.ts [--steps 170] [--parallel 5]
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Harness } from '../test/helpers/harness.js';
import { badArgument, benchFlags, runBench, zunoBench } from './worker-procs.js';

const flags = benchFlags('usage: npx tsx bench/session-length.ts [--steps 170 (20..199)] [--parallel 5]', {
  steps: { type: 'string', default: '170' },
  parallel: { type: 'string', default: '5' },
});
const STEPS = Number(flags.steps);
const PER_STEP = Number(flags.parallel);
if (!Number.isInteger(STEPS) || STEPS < 20 || STEPS > 199) badArgument('--steps must be an integer in 20..199');
if (!Number.isInteger(PER_STEP) || PER_STEP < 1) badArgument('--parallel must be a positive integer');
const FILES = 20;

/** The modelStep spans of a workflow, in ms, in step order. */
async function modelStepSpans(h: Harness, workflowId: string): Promise<number[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const started = new Map<string, number>();
  const modelSteps = new Set<string>();
  const spans: number[] = [];
  const at = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    Number(t?.seconds ?? 0) * 1000 + (t?.nanos ?? 0) / 1e6;
  for (const e of history.events ?? []) {
    const id = String(e.eventId);
    if (e.activityTaskScheduledEventAttributes?.activityType?.name === 'modelStep') modelSteps.add(id);
    const s = e.activityTaskStartedEventAttributes;
    if (s && modelSteps.has(String(s.scheduledEventId))) started.set(String(s.scheduledEventId), at(e.eventTime));
    const c = e.activityTaskCompletedEventAttributes;
    if (c && started.has(String(c.scheduledEventId)))
      spans.push(at(e.eventTime) - started.get(String(c.scheduledEventId))!);
  }
  return spans;
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!;
const r2 = (x: number) => Math.round(x * 100) / 100;

async function main(): Promise<void> {
  const { root, h, close } = await zunoBench('length');
  try {
    const workspace = join(root, 'ws');
    mkdirSync(join(workspace, 'src'), { recursive: true });
    for (let i = 0; i < FILES; i++) {
      const body = Array.from({ length: 20 }, (_, l) => `export const v${i}_${l} = ${l}; // line ${l}`).join('\n');
      writeFileSync(join(workspace, 'src', `f${i}.ts`), `${body}\n`);
    }
    const replies = Array.from({ length: STEPS }, (_, k) => ({
      toolCalls: Array.from({ length: PER_STEP }, (_, j) => ({
        name: 'read',
        arguments: { path: `src/f${(k * PER_STEP + j) % FILES}.ts` },
      })),
    }));
    const s = await h.startScripted({
      workspace,
      prompt: 'read everything',
      toolConcurrency: PER_STEP,
      script: { replies: [...replies, { text: 'done' }] },
    });
    const result = await s.result().finally(() => s.closeProvider());
    if (result.status !== 'completed') throw new Error(`session ${s.sessionId} ${result.status}`);
    const spans = await modelStepSpans(h, s.workflowId);
    const sizes = s.providerRequests.map((r) => (r as { messages: unknown[] }).messages.length);
    if (spans.length !== sizes.length) throw new Error(`${spans.length} modelStep spans for ${sizes.length} requests`);
    const around = (messages: number) => {
      const k = sizes.reduce(
        (best, n, i) => (Math.abs(n - messages) < Math.abs(sizes[best]! - messages) ? i : best),
        0,
      );
      const window = spans.slice(Math.max(0, k - 2), k + 3);
      return { messages: sizes[k]!, ms: median(window), min: Math.min(...window), max: Math.max(...window) };
    };
    console.log(
      `\nmodelStep against session length: one turn of ${STEPS} steps × ${PER_STEP} reads, worker in its own process (median of 5 steps (min–max))`,
    );
    const at = [10, 100, 1000].map(around);
    for (const a of at)
      console.log(`modelStep ms at ${a.messages} prior messages: ${r2(a.ms)} (${r2(a.min)}–${r2(a.max)})`);
    console.log(`modelStep at ${at[2]!.messages} vs ${at[0]!.messages} prior messages: ${r2(at[2]!.ms / at[0]!.ms)}`);
  } finally {
    await close();
  }
}

await runBench(main);
