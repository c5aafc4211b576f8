/**
 * Compaction inside a turn (CP6, CP8): which model-step outcomes ask for a
 * compaction, the drive's recovery budget, and the `compactSession` input.
 * A drive is one turn (one {@link TurnRun}): at most
 * {@link MAX_RECOVERIES_PER_DRIVE} automatic recoveries, threshold crossings
 * and provider context-limit errors counted together. Deterministic.
 */
import { ActivityFailure, ApplicationFailure } from '@temporalio/common';
import {
  type CompactInput,
  type CompactionTrigger,
  CONTEXT_LIMIT_FAILURE,
  MAX_RECOVERIES_PER_DRIVE,
  type StepKey,
} from '../core/compaction/contract.js';
import type { ModelStepResult } from '../core/session/activities.js';
import type { SessionMeta } from '../core/session/meta.js';
import type { TurnEnd } from '../core/session/outcome.js';
import type { Raced } from './turn-control.js';

/** A compaction a model step asks for: the trigger and the figures that crossed the line. */
export interface CompactionNeed {
  trigger: Exclude<CompactionTrigger, 'manual'>;
  usedTokens?: number;
  limitTokens?: number;
}

/**
 * What a model step's outcome asks of compaction: `threshold` when the
 * step returned `compactionRequired` (CP6: nothing was sent), `context_limit`
 * when it failed with the provider's explicit context-limit error (CP8, the
 * provider's used/limit kept); null otherwise.
 */
export function compactionNeed(outcome: Raced<ModelStepResult>): CompactionNeed | null {
  if (outcome.kind === 'done') {
    const r = outcome.value.compactionRequired;
    return r ? { trigger: 'threshold', usedTokens: r.usedTokens, limitTokens: r.limitTokens } : null;
  }
  if (outcome.kind !== 'failed') return null;
  const cause = outcome.error instanceof ActivityFailure ? outcome.error.cause : outcome.error;
  if (!(cause instanceof ApplicationFailure) || cause.type !== CONTEXT_LIMIT_FAILURE) return null;
  const d = (cause.details?.[0] ?? {}) as { used?: unknown; limit?: unknown };
  return {
    trigger: 'context_limit',
    ...(typeof d.used === 'number' ? { usedTokens: d.used } : {}),
    ...(typeof d.limit === 'number' ? { limitTokens: d.limit } : {}),
  };
}

/** The recoveries of one drive (CP6): how many ran, and the next one's input or the typed end when spent. */
export class DriveRecoveries {
  private used = 0;

  /** Recoveries run so far in this drive. */
  get count(): number {
    return this.used;
  }

  /**
   * The `compactSession` input of the next recovery at step `at`, or the
   * turn's typed end `compaction_limit` when {@link MAX_RECOVERIES_PER_DRIVE}
   * already ran (fails closed; never loops).
   */
  next(meta: SessionMeta, at: StepKey, need: CompactionNeed, uid: string): CompactInput | TurnEnd {
    if (this.used >= MAX_RECOVERIES_PER_DRIVE) {
      return {
        kind: 'failed',
        code: 'compaction_limit',
        message: `this turn already compacted its conversation ${MAX_RECOVERIES_PER_DRIVE} times, the most one turn may (CP6), and step ${at.step + 1} asked again (${describe(need)}); the session can go on with a new message or goal turn`,
      };
    }
    this.used += 1;
    return compactInput(meta, { at, uid }, need.trigger, this.used, need);
  }
}

/**
 * The `compactSession` input of one compaction at step `where.at`; its id
 * `cmp_<turn>_<step>_<uid>` is unique in the session (`uid`: a fresh
 * workflow uuid; a resumed turn runs the same step numbers again).
 */
export function compactInput(
  meta: SessionMeta,
  where: { at: StepKey; uid: string },
  trigger: CompactionTrigger,
  recovery: number,
  figures: { usedTokens?: number; limitTokens?: number } = {},
): CompactInput {
  return {
    meta,
    compactionId: `cmp_${where.at.turn}_${where.at.step}_${where.uid.slice(0, 8)}`,
    trigger,
    at: where.at,
    recovery,
    ...(figures.usedTokens !== undefined ? { usedTokens: figures.usedTokens } : {}),
    ...(figures.limitTokens !== undefined ? { limitTokens: figures.limitTokens } : {}),
  };
}

function describe(need: CompactionNeed): string {
  const figures =
    need.usedTokens !== undefined && need.limitTokens !== undefined
      ? ` (${need.usedTokens} tokens, ${need.trigger === 'threshold' ? 'threshold' : 'limit'} ${need.limitTokens})`
      : '';
  return need.trigger === 'threshold'
    ? `over the compaction threshold${figures}`
    : `the provider's context limit${figures}`;
}
