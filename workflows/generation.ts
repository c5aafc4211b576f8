import { patched } from '@temporalio/workflow';

/**
 * The workflow generations (DESIGN.md §4): each `patched()` id names one
 * change of a workflow's command sequence; a history recorded before it
 * replays the old behaviour. Every id is read in this file only, into the
 * typed record the workflow code consults ({@link readSessionGeneration},
 * {@link councilGeneration}) — no `patched()` call sits in the middle of logic.
 */

/**
 * State-machine session (issue 8): ZunoStatus upserts, failed/paused/blocked
 * sessions ending their workflow Failed, steered inputs taken before a turn
 * ends, the TD10 force deadline measured from delivery.
 */
export const STATE_MACHINE_PATCH = 'zuno-session-state-machine-v2';
/**
 * Resumable pauses (issue 9): a turn that pauses (PR3: `provider_auth`)
 * leaves the workflow open, phase `paused`, until a `resume` Update. Before
 * it, a session ended Failed at a pause.
 */
export const RESUME_PATCH = 'zuno-session-resume-v3';
/**
 * Fast turns (issue 13): `finishTurn` runs first as a local activity, and a
 * turn's call dispatch creates fewer promises (the order of commands issued
 * in one activation can depend on that structure).
 */
export const FAST_TURN_PATCH = 'zuno-fast-turn-v1';
/**
 * Local reads (issue 13). v1: every eligible short read runs first as a
 * local activity; v2: only when its whole batch runs at once. Before v1,
 * every tool call was a regular activity.
 */
export const LOCAL_TOOLS_PATCH = 'zuno-local-tools-v2';
/** See {@link LOCAL_TOOLS_PATCH}. */
export const LOCAL_TOOLS_V1_PATCH = 'zuno-local-tools-v1';
/**
 * Approvals that show and bind the call's full text (issue 26 items 1 and
 * 3): the whole command, its parsed parts and sha256, one exact grant.
 * Before it, the asking simple commands joined by `; `, one grant each.
 */
export const EXACT_SUBJECT_PATCH = 'zuno-approval-exact-subject-v1';
/**
 * Shown texts that name where a command runs (a shell `workdir` other than
 * the workspace root). Asked only for a call that has such a workdir.
 */
export const WORKDIR_SUBJECT_PATCH = 'zuno-approval-subject-workdir-v1';
/** Remote observers whose wait the workflow holds (issue 10): before it, one `bgCommand` activity ran the observer to its end. */
export const OBSERVER_PATCH = 'zuno-remote-observer-v1';
/** Councils that record a seat attempt when it starts (issue 25 item 7.2). */
export const SEAT_START_RECORD_PATCH = 'zuno-council-seat-start-record-v1';

/**
 * Compaction (issue 28, CP6–CP15): a model step that asks for it, or a
 * provider's context-limit error, runs `compactSession` and the step again;
 * a person's `compact` Update runs it between turns. Read where the first
 * compaction is about to be scheduled.
 */
export const COMPACTION_PATCH = 'zuno-compaction-v1';

/** Which local-reads rule a session follows: none (regular activities only), v1 or v2 (see {@link LOCAL_TOOLS_PATCH}). */
export type LocalToolsRule = 'none' | 'v1' | 'v2';

/**
 * What a session workflow of this generation does. The first four fields
 * are read in the run's first activation (where the session has always
 * read them). The last three are getters read where the code first needs
 * them: their markers were recorded there, mid-run, in existing histories —
 * a replay that asked earlier would see no marker yet and take the old
 * branch. They call `patched()` until it says true (a history whose run
 * moved to a newer worker mid-way records the marker at that later point).
 */
export interface SessionGeneration {
  /** {@link STATE_MACHINE_PATCH}. */
  readonly stateMachine: boolean;
  /** {@link RESUME_PATCH} (only under {@link STATE_MACHINE_PATCH}). */
  readonly resumablePause: boolean;
  /** {@link FAST_TURN_PATCH}. */
  readonly fastTurn: boolean;
  /** {@link LOCAL_TOOLS_PATCH}: which short reads run as local activities. */
  readonly localReads: LocalToolsRule;
  /** {@link EXACT_SUBJECT_PATCH}; read when an approval is first asked for. */
  readonly exactApprovalSubject: boolean;
  /** {@link WORKDIR_SUBJECT_PATCH}; read when a call with a workdir is first shown. */
  readonly workdirInApprovalSubject: boolean;
  /** {@link OBSERVER_PATCH}; read when a remote observer first starts. */
  readonly workflowHeldObserver: boolean;
  /** {@link COMPACTION_PATCH}; read when a compaction is first about to be scheduled. */
  readonly compaction: boolean;
}

/** A getter of `id` that asks `patched()` until it says true (see {@link SessionGeneration}). */
function lazyPatch(id: string): () => boolean {
  let seen = false;
  return () => (seen ||= patched(id));
}

/**
 * The generation of this session run. Call once, in the first activation
 * (the session machine's constructor): the eager fields record their
 * markers there. A new run takes every behaviour; an older history replays
 * the ones its markers name.
 */
export function readSessionGeneration(): SessionGeneration {
  const stateMachine = patched(STATE_MACHINE_PATCH);
  const resumablePause = stateMachine && patched(RESUME_PATCH);
  // The order of these reads is the order their markers were recorded in: keep it.
  const localReads: LocalToolsRule = patched(LOCAL_TOOLS_PATCH) ? 'v2' : patched(LOCAL_TOOLS_V1_PATCH) ? 'v1' : 'none';
  const fastTurn = patched(FAST_TURN_PATCH);
  const exact = lazyPatch(EXACT_SUBJECT_PATCH);
  const workdir = lazyPatch(WORKDIR_SUBJECT_PATCH);
  const observer = lazyPatch(OBSERVER_PATCH);
  const compaction = lazyPatch(COMPACTION_PATCH);
  return {
    stateMachine,
    resumablePause,
    fastTurn,
    localReads,
    get exactApprovalSubject() {
      return exact();
    },
    get workdirInApprovalSubject() {
      return workdir();
    },
    get workflowHeldObserver() {
      return observer();
    },
    get compaction() {
      return compaction();
    },
  };
}

/** What a Council workflow of this generation does (getters: read where first needed, see {@link SessionGeneration}). */
export interface CouncilGeneration {
  /** {@link SEAT_START_RECORD_PATCH}; read when the first seat attempt starts. */
  readonly seatStartRecord: boolean;
}

/** The generation of this Council run. Call once, in the Council machine's constructor. */
export function councilGeneration(): CouncilGeneration {
  const seatStart = lazyPatch(SEAT_START_RECORD_PATCH);
  return {
    get seatStartRecord() {
      return seatStart();
    },
  };
}

/** A generation with every behaviour on (what a new run records): for code outside a workflow, e.g. unit tests. */
export const CURRENT_SESSION_GENERATION: SessionGeneration = {
  stateMachine: true,
  resumablePause: true,
  fastTurn: true,
  localReads: 'v2',
  exactApprovalSubject: true,
  workdirInApprovalSubject: true,
  workflowHeldObserver: true,
  compaction: true,
};
