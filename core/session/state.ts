/** Where a session stands: its phase, the `ZunoStatus` values derived from it, and the `state` query's result. */
import type { AdmissionReceipt } from './inbox.js';
import type { SessionRoute } from './meta.js';
import type { TurnOutcome } from './outcome.js';

/**
 * The session's orchestration phase (workflows/session-machine.ts): what the
 * session is doing and which transitions it accepts. `ZunoStatus` in the
 * Temporal UI is derived from it (see {@link ZunoStatusValue}).
 */
export type SessionPhase =
  'idle' | 'running_turn' | 'interrupting' | 'waiting_background' | 'paused' | 'blocked' | 'closed';

/**
 * Values of the `ZunoStatus` keyword search attribute, upserted at every
 * phase change: `idle` (waiting for input), `running` (a turn runs),
 * `interrupting` (a hard interrupt is settling the turn), `waiting_background`
 * (the turn ended, background tasks still run and will report),
 * `waiting_approval` (a call waits for a person's decision), and the
 * final values `completed`, `failed`, `paused`, `blocked`, `interrupted`.
 */
export type ZunoStatusValue =
  | 'idle'
  | 'running'
  | 'interrupting'
  | 'waiting_background'
  | 'waiting_approval'
  | 'completed'
  | 'failed'
  | 'paused'
  | 'blocked'
  | 'interrupted';

/** What a running turn is doing right now (for the status line and the interrupt receipt). */
export type TurnActivity = 'idle' | 'model' | 'compacting' | 'tools' | 'interrupting';

/** Query `state` result. */
export interface SessionState {
  sessionId: string;
  /** Where the session's activities run now (absent: the workflow's own task queue). */
  route?: SessionRoute;
  /** Set while an activity has waited longer than the notice period for a worker of the route. */
  waitingForWorker?: { host: string; taskQueue: string; sinceMs: number };
  /** The session's phase. */
  phase: SessionPhase;
  /** Inside a turn: whether a model step or tool calls run; `idle` between turns. */
  activity: TurnActivity;
  turn: number;
  step: number;
  pending: { inputId: string; admission: AdmissionReceipt['status']; kind?: 'report' }[];
  /** Background tasks this run is executing (BG1). */
  background: string[];
  lastFinalText: string | null;
  /** How the last turn ended; null before the first turn ended. */
  lastOutcome: TurnOutcome | null;
}
