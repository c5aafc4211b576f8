/**
 * Which steps a compaction summarizes (CP13, CP14): the steps from the
 * current summary's boundary (or the session's start) up to the step about
 * to be sent, minus the most recent ones that fit in the retained zone
 * (`compaction.retainedTokens`, kept verbatim). Boundaries fall only
 * between steps, so a call never leaves its result. When every step fits
 * the retained zone, the zone shrinks to nothing; with no step at all there
 * is nothing to compact (`compaction_failed`).
 */
import { ApplicationFailure } from '@temporalio/activity';
import type { StepKey } from '../../../core/compaction/contract.js';
import type { ProjectionStore, TranscriptRows } from '../../projection/types.js';
import { stepsToMessages } from '../prompt.js';
import type { ValidSummary } from './current.js';
import { groupSteps, joinSteps, stepBefore, type StepRows } from './steps.js';
import { estimateTokens } from './tokens.js';

/** Where the session's first user message is stored (CP10). */
export type AnchorKey = { turn: number; step: number; position: number };

/** The steps a compaction summarizes and keeps, with the counts its summary records. */
export interface WindowPlan {
  /** Steps after the previous boundary through the new one, oldest first (never empty). */
  summarized: StepRows[];
  /** Steps after the new boundary before `at`, kept verbatim. */
  retained: StepRows[];
  boundary: StepKey;
  anchor: AnchorKey | null;
  /** From the session's start through `boundary` (the previous summary's counts included; the anchor excluded). */
  summarizedSteps: number;
  summarizedUserMessages: number;
  /** Estimated tokens of each retained step's messages, in total. */
  retainedTokens: number;
  /** Estimated tokens of every step from the previous boundary before `at`. */
  windowTokens: number;
}

/** Estimated tokens of one step's messages as a request carries them. */
export function stepTokens(step: StepRows): number {
  return estimateTokens(JSON.stringify(stepsToMessages(step.rows)));
}

/** The first user text part of the earliest step (the anchor), or null. */
function firstUserPart(steps: readonly StepRows[]): AnchorKey | null {
  for (const s of steps) {
    const users = new Set(s.rows.messages.filter((m) => m.role === 'user').map((m) => m.id));
    const p = s.rows.parts.find((x) => x.kind === 'text' && users.has(x.messageId));
    if (p) return { turn: p.turn, step: p.step, position: p.position };
  }
  return null;
}

/** Assistant and user messages (the anchor left out) the steps hold, as a request would carry them. */
function counts(rows: TranscriptRows, anchor: AnchorKey | null): { steps: number; users: number } {
  const messages = stepsToMessages(rows);
  const hasAnchor =
    anchor !== null &&
    rows.parts.some((p) => p.turn === anchor.turn && p.step === anchor.step && p.position === anchor.position);
  return {
    steps: messages.filter((m) => m.role === 'assistant').length,
    users: messages.filter((m) => m.role === 'user').length - (hasAnchor ? 1 : 0),
  };
}

/**
 * Plans the compaction of `sessionId` before step `at` (see the module comment).
 * @throws ApplicationFailure `compaction_failed` (non-retryable) when no step lies between the boundary and `at`.
 */
export async function planWindow(
  store: Pick<ProjectionStore, 'transcriptAfter'>,
  sessionId: string,
  at: StepKey,
  previous: ValidSummary | null,
  retainedBudget: number,
): Promise<WindowPlan> {
  const rows = await store.transcriptAfter(sessionId, previous?.boundary ?? null);
  const steps = groupSteps(rows).filter((s) => stepBefore(s.key, at));
  if (steps.length === 0) {
    throw ApplicationFailure.nonRetryable(
      `nothing left to compact: session ${sessionId} has no step between ${previous ? `the last compaction (through turn ${previous.boundary.turn + 1} step ${previous.boundary.step + 1})` : 'its start'} and turn ${at.turn + 1} step ${at.step + 1}`,
      'compaction_failed',
    );
  }
  const costs = steps.map(stepTokens);
  let keep = 0;
  let kept = 0;
  for (let i = steps.length - 1; i >= 0 && kept + costs[i]! <= retainedBudget; i--) {
    kept += costs[i]!;
    keep++;
  }
  if (keep === steps.length) {
    keep = 0; // everything fits the retained zone: shrink it to nothing
    kept = 0;
  }
  const summarized = steps.slice(0, steps.length - keep);
  const anchor = previous ? previous.anchor : firstUserPart(steps);
  const c = counts(joinSteps(summarized), anchor);
  return {
    summarized,
    retained: steps.slice(steps.length - keep),
    boundary: summarized[summarized.length - 1]!.key,
    anchor,
    summarizedSteps: (previous?.summarizedSteps ?? 0) + c.steps,
    summarizedUserMessages: (previous?.summarizedUserMessages ?? 0) + c.users,
    retainedTokens: kept,
    windowTokens: costs.reduce((a, b) => a + b, 0),
  };
}
