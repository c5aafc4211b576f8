/**
 * How a turn and a session end: the typed turn outcome, the session
 * workflow's result, and the PR3 failure codes that pause or block a session
 * instead of failing the turn.
 */
import { RULE_FILE_UNREADABLE } from '../rule-budget.js';
import type { ErrorCode } from '../error-codes.js';
import { WORKSPACE_UNAVAILABLE } from './workspace-pause.js';

/**
 * How one turn ended — the typed turn outcome that the session returns to
 * whoever drove the turn (the CLI today; Goal, Council and delegation
 * workflows next). `turn` is 0-based; `steps` counts the model steps it ran;
 * `inputIds` are the inputs it carried (SE2).
 * - `final_answer`: the model answered (text in the projection, `textLength` UTF-16 units).
 * - `failed`: a typed failure (`code`, e.g. `provider_bad_request`, `model_step_timeout`).
 * - `paused`: a person must act before the session can go on (PR3: `provider_auth`; issue 33:
 *   `workspace_unavailable`, the session's workspace is missing on its host).
 * - `blocked`: the setup is broken (PR3: `provider_protocol`, `provider_config`, …).
 * - `interrupted`: a hard interrupt (TD10) stopped the turn.
 * - `limit`: the turn hit a runaway guard (`turn_step_limit`; `stagnant_tool_loop`: the same
 *   work-state read three times in a row, GP22).
 */
export type TurnOutcome = { turn: number; steps: number; inputIds: string[] } & TurnEnd;

/** How a turn ended, without its position (see {@link TurnOutcome}). */
export type TurnEnd =
  | { kind: 'final_answer'; textLength: number }
  | {
      kind: 'failed';
      code: string;
      message: string;
      /** The failure may go away by itself (a provider's 5xx, 429, timeout, a cut stream): a Goal backs off (GL5). */
      retryable?: boolean;
      /** The provider's `Retry-After`, ms (GL6). */
      retryAfterMs?: number;
    }
  | { kind: 'paused'; reason: string; message: string }
  | { kind: 'blocked'; code: string; message: string }
  | { kind: 'interrupted'; source?: string }
  | { kind: 'limit'; limit: 'turn_step_limit' | 'stagnant_tool_loop'; message: string };

/**
 * Result of the session workflow. A `completed` or `interrupted` session
 * completes its workflow with this value; a `failed`, `paused` or `blocked`
 * one fails it with an ApplicationFailure whose type is the Zuno error code
 * and whose first detail is this value (client/session-start.ts
 * `sessionResultOf` reads both).
 */
export interface SessionResult {
  sessionId: string;
  status: 'completed' | 'failed' | 'paused' | 'blocked' | 'interrupted';
  turns: number;
  error?: { code: string; message: string };
  /** How the last turn ended (absent in results recorded before it existed). */
  outcome?: TurnOutcome;
}

/**
 * PR3: failures that need a person before the session can go on. Auth
 * failures pause (fix the key, resume); so does a model step whose
 * workspace is missing on its host (issue 33: restore it, resume — a code
 * no model step raised before, so older histories classify as they did);
 * an invalid protocol, a corrupt state or a permanent configuration error
 * blocks (fix the setup); every other failure fails the turn.
 */
export const PAUSING_FAILURES: readonly string[] = ['provider_auth', WORKSPACE_UNAVAILABLE] satisfies ErrorCode[];

/**
 * PR3: failure codes that block the session (the setup is broken; a person
 * fixes it, a retry would not). `rule_file_unreadable` (SE27): a local rule
 * file Zuno cannot read stops the turn before its first provider request.
 */
export const BLOCKING_FAILURES: readonly string[] = [
  'provider_protocol',
  'provider_config',
  'corrupt_state',
  'config_invalid',
  RULE_FILE_UNREADABLE,
] satisfies ErrorCode[];
