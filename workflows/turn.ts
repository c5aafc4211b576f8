import type { AdmittedInput } from '../core/session/inbox.js';
import type { BackgroundTasks } from './background.js';
import type { SessionGeneration } from './generation.js';
import type { TurnControl } from './turn-control.js';
import { type PortsHost, workflowTurnPorts } from './turn-ports.js';
import { TurnRun, type TurnOptions, type TurnResult, type TurnRunHost } from './turn-run.js';

export {
  errorOf,
  MAX_STEPS_PER_TURN,
  statusOf,
  type TurnOptions,
  type TurnResult,
  type TurnRunHost,
} from './turn-run.js';

/** What a turn needs from the session it runs in: its state ({@link TurnRunHost}) and what the workflow's ports use. */
export interface TurnHost extends TurnRunHost, PortsHost {
  readonly background: BackgroundTasks;
  readonly generation: SessionGeneration;
}

/**
 * Runs one turn of the session workflow (SE1, TD5, TD10): a {@link TurnRun}
 * driven by the workflow's ports (turn-ports.ts). Never throws for a model
 * or tool failure: it ends with a typed outcome.
 * @param first the inputs that drive the turn (taken from the inbox by the caller).
 * @param resumed ids of inputs a paused turn carried: a resumed turn (`first`
 *   empty) answers them, and its outcome and finishTurn count them as its own.
 */
export function runTurn(
  host: TurnHost,
  ctl: TurnControl,
  turn: number,
  first: AdmittedInput[],
  resumed: string[] = [],
  opts: TurnOptions = {},
): Promise<TurnResult> {
  return new TurnRun(host, ctl, workflowTurnPorts(host, ctl), { turn, first, resumed, opts }).run();
}
