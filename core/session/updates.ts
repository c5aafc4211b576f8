/**
 * The session workflow's message surface for clients: the names of its
 * Updates (`submitInput`, `interrupt`, `resume`), its query (`state`) and its
 * signal (`bgSettled`), with the Updates' arguments and receipts.
 */
import type { ContextWindow } from '../compaction/settings.js';
import type { ProviderConfig } from '../provider-config.js';
import type { SessionRoute } from './meta.js';
import type { TurnActivity } from './state.js';

/** Update `submitInput` argument (SE1). */
export interface SubmitInputRequest {
  text: string;
  /** Optional idempotency key per session (SE2); never dedupe by text. */
  clientMessageId?: string;
}

/** Name of the session input update. */
export const SUBMIT_INPUT_UPDATE = 'submitInput';

/** Name of the session hard-interrupt update (TD10). */
export const INTERRUPT_UPDATE = 'interrupt';

/** Update name: compact the session's conversation now (issue 28 item 4; between turns). */
export const COMPACT_UPDATE = 'compact';

/** `compact` Update request: who asks (recorded nowhere else; the receipt says what happened). */
export interface CompactRequest {
  /** Free text for the history, e.g. `zuno session compact`. */
  requestedBy?: string;
}

/** `compact` Update result: the published summary's facts (core/compaction/contract.ts CompactResult) and when it ran. */
export interface CompactReceipt {
  sessionId: string;
  compactionId: string;
  boundary: { turn: number; step: number };
  beforeTokens: number;
  afterTokens: number;
  summaryHash: string;
  estimator: string;
  /** The session was running a turn when asked: the compaction waited for it to end. */
  waitedForTurn: boolean;
}

/** Update name: resume a paused session (its cause fixed). */
export const RESUME_UPDATE = 'resume';

/**
 * Update `resume` argument: who serves the session from now on and, for a
 * session whose provider lived in the old process (a scripted local
 * provider), where the provider is now. Fields absent keep what the session has.
 */
export interface ResumeRequest {
  route?: SessionRoute;
  provider?: ProviderConfig;
  model?: string;
  /** With `model`: its context window (null: unknown), so compaction measures the new model (issue 28). */
  context?: ContextWindow | null;
  /** Who asks (e.g. `cli:session-resume`), recorded in the resume event. */
  source?: string;
}

/** Update `resume` result. */
export interface ResumeReceipt {
  sessionId: string;
  /** The turn that will run (0-based). */
  turn: number;
  /** What paused the session. */
  pausedBy: string;
}

/** Update `interrupt` argument. */
export interface InterruptRequest {
  /** Who asked, for the record (e.g. `cli:ctrl-c`, `cli:session interrupt`). */
  source?: string;
}

/** Update `interrupt` result. */
export interface InterruptReceipt {
  sessionId: string;
  /** false when no turn was running (nothing to interrupt). */
  interrupted: boolean;
  turn: number;
  /** What the turn was doing when the interrupt arrived. */
  phase: TurnActivity;
  /** true when an earlier interrupt of this turn is already in progress. */
  alreadyRequested: boolean;
  /** With no turn running: the background tasks this interrupt stopped (their outcome is recorded, no report turn follows). */
  backgroundCancelled: string[];
}

/** Name of the session state query. */
export const STATE_QUERY = 'state';

/**
 * Signal a worker sends the session when a remote observer's command it runs
 * has ended (its taskID): the workflow polls at once instead of at its next
 * timer. A hint only — the poll decides; a lost signal costs one poll interval.
 */
export const BG_SETTLED_SIGNAL = 'bgSettled';
