/**
 * Measurements of the orchestration-overhead benchmark for one tool case:
 * direct in-process calls, scripted sessions through the real stack, and the
 * per-session time split read back from the stored tool-call rows and events.
 */
import { performance } from 'node:perf_hooks';
import { toolImplementations, type ToolContext } from '../activities/tools/index.js';
import type { EventRow } from '../activities/projection/types.js';
import type { Harness } from '../test/helpers/harness.js';
import { script, type BenchCase } from './overhead-cases.js';

export const mean = (xs: number[]) => (xs.length ? xs.reduce((a, b) => a + b, 0) / xs.length : NaN);

/** Direct in-process calls of the tool function: mean ms per call. */
export async function direct(c: BenchCase, workspace: string): Promise<number> {
  const tool = toolImplementations[c.tool]!;
  const call = async (i: number, tag: string) => {
    const ctx: ToolContext = {
      workspace,
      sessionId: 'ses_bench',
      rowId: 'tc_1_0_0',
      callId: `call_bench_${tag}_${i}`,
      credentials: () => undefined,
    };
    const r = await tool.run(c.args(i, tag), ctx);
    if (r.isError) throw new Error(`direct ${c.tool} failed: ${r.output}`);
  };
  for (let i = 0; i < c.warmup; i++) await call(i, 'direct-warm');
  const t0 = performance.now();
  for (let i = 0; i < c.direct; i++) await call(i, 'direct');
  return (performance.now() - t0) / c.direct;
}

export interface Timed {
  sessionId: string;
  startMs: number;
  endMs: number;
}

export async function timedSession(h: Harness, c: BenchCase, workspace: string): Promise<Timed> {
  const startMs = Date.now();
  const s = await h.startScripted({ script: script(c), prompt: c.prompt, workspace, toolConcurrency: c.perStep });
  try {
    const result = await s.result();
    if (result.status !== 'completed') throw new Error(`session ${s.sessionId} ${result.status}`);
    return { sessionId: s.sessionId, startMs, endMs: Date.now() };
  } finally {
    await s.closeProvider();
  }
}

/** Runs `count` sessions with at most `limit` in flight; returns them and the phase wall time. */
export async function phase(h: Harness, c: BenchCase, workspace: string, count: number, limit: number) {
  const runs: Timed[] = [];
  let next = 0;
  const t0 = Date.now();
  const lane = async () => {
    while (next < count) {
      next++;
      runs.push(await timedSession(h, c, workspace));
    }
  };
  await Promise.all(Array.from({ length: Math.min(limit, count) }, lane));
  return { runs, wallMs: Date.now() - t0 };
}

async function allEvents(h: Harness, sessionId: string): Promise<EventRow[]> {
  const out: EventRow[] = [];
  for (let after = 0; ;) {
    const page = await h.store.listEvents(sessionId, after, 500);
    out.push(...page);
    if (page.length < 500) return out;
    after = page[page.length - 1]!.seq;
  }
}

/** Per-session time split from the stored rows and events (ms, summed over the session). */
export async function breakdown(h: Harness, c: BenchCase, r: Timed) {
  const t = (await h.store.loadTranscript(r.sessionId))!;
  const calls = t.toolCalls.filter((row) => row.tool === c.tool && row.outcome === 'ok');
  if (calls.length !== c.calls) {
    throw new Error(`session ${r.sessionId}: ${calls.length}/${c.calls} ok ${c.tool} calls`);
  }
  const rowSpans = calls.map((row) => row.endedAtMs! - row.startedAtMs!);
  const events = await allEvents(h, r.sessionId);
  const eventSpans = events.filter((e) => e.type === 'tool.completed').map((e) => Number(e.data.durationMs));
  // Per model step: model step done → first tool started → last tool completed → next step done.
  const stepOf = (e: EventRow) =>
    Number(e.type === 'message.completed' ? e.data.step : String(e.data.rowId).split('_')[2]);
  const steps = new Map<number, { done: number; first: number; last: number }>();
  for (const e of events) {
    const s = steps.get(stepOf(e)) ?? { done: NaN, first: Infinity, last: -Infinity };
    if (e.type === 'message.completed') s.done = e.atMs;
    else if (e.type === 'tool.started') s.first = Math.min(s.first, e.atMs);
    else if (e.type === 'tool.completed') s.last = Math.max(s.last, e.atMs);
    else continue;
    steps.set(stepOf(e), s);
  }
  let toolPhase = 0;
  let dispatch = 0;
  let modelRoundTrip = 0;
  for (const [i, s] of steps) {
    if (s.first === Infinity) continue;
    toolPhase += s.last - s.first;
    dispatch += s.first - s.done;
    modelRoundTrip += (steps.get(i + 1)?.done ?? NaN) - s.last;
  }
  const wall = r.endMs - r.startMs;
  return {
    wall,
    rowSpans,
    eventSpans,
    toolPhase,
    dispatch,
    modelRoundTrip,
    edges: wall - toolPhase - dispatch - modelRoundTrip,
  };
}

export interface CaseFigures {
  directMs: number;
  wallPerCall: number;
  rowMs: number;
  eventMs: number;
  toolPhase: number;
  /**
   * Exclusive tools: tool phase minus activity span, per call — the hand-off
   * from one serialized activity to the next, amortized over all calls.
   */
  betweenCalls: number;
  overhead: number;
  dispatch: number;
  modelRoundTrip: number;
  edges: number;
  seqRate: number;
  concRate: number;
}

/**
 * One case through the given (warmed-up) harness: N sessions one at a time,
 * then N sessions at most `concurrency` at once; figures are per call, from
 * the sequential sessions (the concurrent ones are validated too).
 */
export async function measureCase(h: Harness, c: BenchCase, workspace: string, directMs: number): Promise<CaseFigures> {
  const seq = await phase(h, c, workspace, c.sessions, 1);
  const conc = await phase(h, c, workspace, c.sessions, c.concurrency);
  const parts = await Promise.all(seq.runs.map((r) => breakdown(h, c, r)));
  await Promise.all(conc.runs.map((r) => breakdown(h, c, r)));

  const perCall = (f: (b: (typeof parts)[number]) => number) => mean(parts.map(f)) / c.calls;
  const wallPerCall = perCall((b) => b.wall);
  const rowMs = mean(parts.flatMap((b) => b.rowSpans));
  const toolPhase = perCall((b) => b.toolPhase);
  const total = c.sessions * c.calls;
  return {
    directMs,
    wallPerCall,
    rowMs,
    eventMs: mean(parts.flatMap((b) => b.eventSpans)),
    toolPhase,
    betweenCalls: c.exclusive ? toolPhase - rowMs : NaN,
    overhead: wallPerCall - toolPhase,
    dispatch: perCall((b) => b.dispatch),
    modelRoundTrip: perCall((b) => b.modelRoundTrip),
    edges: perCall((b) => b.edges),
    seqRate: total / (seq.wallMs / 1000),
    concRate: total / (conc.wallMs / 1000),
  };
}
