import { proxyActivities, setCurrentDetails, uuid4, workflowInfo, type ActivityOptions } from '@temporalio/workflow';
import type { CompactInput, CompactResult } from '../core/compaction/contract.js';
import type { ModelStepInput, ModelStepResult, SessionActivities } from '../core/session/activities.js';
import type { ToolActivityInput, ToolActivityResult } from '../core/session/tool-activity.js';
import type { PlannedToolCall } from '../core/session/tool-calls.js';
import type { BackgroundTasks } from './background.js';
import { runCouncilCall } from './council-call.js';
import { type DelegatedCall, type DelegationHost, runTask } from './delegation.js';
import type { SessionGeneration } from './generation.js';
import { type LocalAttempt, localFirst, tryLocal } from './local-tools.js';
import { admitCall, decideCall, type GateHost, type GateResult } from './permission-gate.js';
import { onRoute } from './route.js';
import { awaitOrForced, raceForced, type Raced, type TurnControl } from './turn-control.js';

/** Where in the session a call is made: its turn and model step. */
export interface TurnWhere {
  turn: number;
  step: number;
}

/**
 * What a {@link TurnRun} does to the world: every command a turn issues
 * (activities, child workflows, the current details) and every wait on the
 * turn's cancellation scope goes through these. The workflow's ports are
 * {@link workflowTurnPorts}; a unit test drives a turn with plain async
 * fakes. Each port returns the promise of the call it wraps unchanged: a
 * port adds no promise step, so the commands of one activation are issued
 * in the order the turn was recorded with.
 */
export interface TurnPorts {
  /** Runs the turn's steps in its cancellation scope (an interrupt cancels it). */
  inScope(steps: () => Promise<void>): Promise<void>;
  /** Waits for a running activity, or after a hard interrupt at most until the force deadline (TD10). Never rejects. */
  race<T>(running: Promise<T>): Promise<Raced<T>>;
  /** Sets the workflow's current details (the Temporal UI's one-line status). */
  details(line: string): void;
  /** Schedules the `modelStep` activity on the session's route. */
  modelStep(input: ModelStepInput, options: ActivityOptions): Promise<ModelStepResult>;
  /** Schedules the `compactSession` activity on the session's route (CP6–CP15). */
  compactSession(input: CompactInput, options: ActivityOptions): Promise<CompactResult>;
  /** The permission gate's decision when nobody needs to be asked, else null (synchronous; fast turns). */
  decideCall(call: PlannedToolCall): GateResult | null;
  /** The permission gate: decides, asking a person and waiting when the policy says `ask` (TD2, PM6). */
  admitCall(call: PlannedToolCall, where: TurnWhere, interrupted: () => boolean): Promise<GateResult>;
  /** Runs a delegating call (`task` or `council_run`) as a child workflow (issue 12). */
  delegate(kind: 'task' | 'council', call: PlannedToolCall, where: TurnWhere): Promise<DelegatedCall>;
  /** Schedules tool activity `activity` on the session's route. */
  toolActivity(activity: string, options: ActivityOptions, input: ToolActivityInput): Promise<ToolActivityResult>;
  /** A fast turn's local-first run of a short read (local-tools.ts `localFirst`). */
  localFirst(
    activity: string,
    summary: string,
    input: ToolActivityInput & { localOn: string },
    regular: () => Promise<ToolActivityResult>,
  ): Promise<ToolActivityResult>;
  /** An older turn's local attempt of a short read (local-tools.ts `tryLocal`). */
  tryLocal(tool: string, summary: string, input: ToolActivityInput & { localOn: string }): Promise<LocalAttempt>;
  /** A fresh id (a workflow uuid: deterministic on replay). */
  uid(): string;
  /** The workflow's own task queue (where a session without a route runs local reads). */
  taskQueue(): string;
}

/** What the workflow's turn ports need from the session. */
export interface PortsHost extends GateHost, DelegationHost {
  readonly background: BackgroundTasks;
  readonly generation: SessionGeneration;
}

/**
 * The ports of a turn run in the session workflow: Temporal activities on
 * the session's route, the turn's cancellation scope, and the force race a
 * generation was recorded with (`awaitOrForced` under `fastTurn`, else
 * `raceForced`). Deterministic.
 */
export function workflowTurnPorts(host: PortsHost, ctl: TurnControl): TurnPorts {
  const race = host.generation.fastTurn ? awaitOrForced : raceForced;
  return {
    inScope: (steps) => ctl.scope.run(steps),
    race: (running) => race(ctl, running),
    details: (line) => setCurrentDetails(line),
    modelStep: (input, options) =>
      onRoute(host, (o) => proxyActivities<SessionActivities>({ ...options, ...o }).modelStep(input)),
    compactSession: (input, options) =>
      onRoute(host, (o) => proxyActivities<SessionActivities>({ ...options, ...o }).compactSession(input)),
    decideCall: (call) => decideCall(host, call),
    admitCall: (call, where, interrupted) => admitCall(host, call, where, interrupted),
    delegate: (kind, call, where) => (kind === 'task' ? runTask(host, call, where) : runCouncilCall(host, call, where)),
    toolActivity: (activity, options, input) =>
      onRoute(host, (o) =>
        proxyActivities<Record<string, (i: ToolActivityInput) => Promise<ToolActivityResult>>>({ ...options, ...o })[
          activity
        ]!(input),
      ),
    localFirst: (activity, summary, input, regular) => localFirst(activity, summary, input, regular),
    tryLocal: (tool, summary, input) => tryLocal(tool, summary, input),
    uid: () => uuid4(),
    taskQueue: () => workflowInfo().taskQueue,
  };
}
