/**
 * SF13: when a turn ends interrupted, each call the interrupt stopped gets a
 * `tool.dispatch.interrupted` event with its verdict, written with the turn's
 * end. The verdict is built from what is stored (the settled outcome, or the
 * call's own uncertain report), so every surface and a later replay read the
 * same words (core/session/interrupt-verdict.ts).
 */
import { EV } from '../../core/events.js';
import { interruptVerdict } from '../../core/session/interrupt-verdict.js';
import type { SettledOutcome } from '../../core/session/tool-calls.js';
import type { ProjectionStore, ProjectionWrite, ToolCallRow } from '../projection/types.js';

/**
 * The `tool.dispatch.interrupted` event writes for the calls of `turn` that
 * the interrupt stopped: the outcomes the workflow settled (`settled`:
 * forced past the cooperative window, or not run) and the calls that
 * reported an uncertain outcome of their own (a shell command stopped
 * cooperatively). Calls that finished before the interrupt get none.
 * Idempotent: one event id per call (`<rowId>:interrupted`).
 */
export async function interruptVerdictWrites(
  store: ProjectionStore,
  sessionId: string,
  turn: number,
  settled: readonly SettledOutcome[],
  atMs: number,
): Promise<ProjectionWrite[]> {
  const rows = (await store.transcriptAfter(sessionId, { turn, step: -1 })).toolCalls.filter((r) => r.turn === turn);
  const bySettled = new Map(settled.map((s) => [s.rowId, s]));
  const writes: ProjectionWrite[] = [];
  for (const row of rows.sort((a, b) => a.step - b.step || a.position - b.position)) {
    const v = verdictFacts(row, bySettled.get(row.id));
    if (!v) continue;
    writes.push({
      kind: 'event',
      event: {
        id: `${row.id}:interrupted`,
        sessionId,
        type: EV.toolDispatchInterrupted,
        data: {
          rowId: row.id,
          callId: row.callId,
          tool: row.tool,
          outcome: v.outcome,
          cause: v.cause,
          verdict: interruptVerdict(v),
        },
        atMs,
      },
    });
  }
  return writes;
}

type Outcome = 'ok' | 'error' | 'blocked' | 'uncertain';

/** The outcome, cause and paths of a call the interrupt stopped, or null for one it did not. */
function verdictFacts(
  row: ToolCallRow,
  s: SettledOutcome | undefined,
): { outcome: Outcome; cause: string; paths: string[] } | null {
  if (s && (s.cause === 'interrupted' || s.cause === 'not_run')) {
    return { outcome: s.outcome, cause: s.cause, paths: s.paths };
  }
  if (row.outcome !== 'uncertain') return null;
  const result = row.result ?? {};
  const own = result.uncertainCause;
  if (typeof own === 'string') return { outcome: 'uncertain', cause: own, paths: [] };
  const rec = result.uncertain as { cause?: unknown; paths?: unknown } | undefined;
  if (rec && typeof rec.cause === 'string' && (rec.cause === 'interrupted' || rec.cause === 'not_run')) {
    const paths = Array.isArray(rec.paths) ? rec.paths.filter((p): p is string => typeof p === 'string') : [];
    return { outcome: 'uncertain', cause: rec.cause, paths };
  }
  return null;
}
