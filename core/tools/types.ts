import type { z } from 'zod';
import type { ErrorCode } from '../error-codes.js';

/** TD1 effect class. Default when undeclared: SideEffecting. */
export type ToolEffect = 'ReadOnly' | 'UserMediated' | 'Delegating' | 'SideEffecting';
/** TD1/TD3 replay policy. Default when undeclared: Never. */
export type ReplayPolicy = 'Safe' | 'Never';
/** TD1/TD5 concurrency class. Default when undeclared: Exclusive. */
export type ToolConcurrency = 'Exclusive' | 'ParallelSafe' | 'IsolatedBackground';

/**
 * The workflow-visible declaration of a tool (TD1): the three independent
 * facts, the zod schema of its arguments, and a one-line summary builder for
 * the Temporal UI (e.g. `grep: TODO in src/`). Deterministic: lives in core/
 * so the session workflow can validate arguments without scheduling anything
 * (TD8). The implementation and model-facing description live in
 * activities/tools/<name>.ts and <name>.txt.
 */
export interface ToolDeclaration<Args = unknown> {
  name: string;
  effect: ToolEffect;
  replay: ReplayPolicy;
  concurrency: ToolConcurrency;
  /** Validates the parsed JSON arguments. */
  args: z.ZodType<Args>;
  /** Short human summary of one call, ≤ 120 chars, for activity summaries. */
  summarize(args: Args): string;
  /**
   * Workspace-relative paths a call may change, when they can be known from
   * its arguments; recorded in an uncertain outcome (GP9 `paths`).
   */
  affectedPaths?(args: Args): string[];
  /**
   * What the session workflow does, deterministically, when it schedules a
   * validated call of this tool, before the activity runs. `cancelsBackgroundTask`:
   * the call stops that background task's scope (BG1 `bg cancel`). Absent: nothing.
   */
  onSchedule?(args: Args): ScheduleEffect | undefined;
  /**
   * For a tool whose calls can hand their work to the background (BG1):
   * how the session workflow runs that work as a `bgCommand` activity.
   */
  background?: BackgroundDeclaration<Args>;
  /**
   * Argument fields that spell out the change a call makes, by field name:
   * `patch` (patch text, shown to people as a diff block) or `content` (a
   * file's whole new content, shown as a text block). When the call's stored
   * result records the change as a unified diff, `zuno session show` shows
   * that diff instead of these fields. Absent: no such fields.
   */
  changeArgs?: Readonly<Record<string, ChangeArg>>;
  /**
   * TD1 effect of one validated call, for a tool whose calls differ by
   * action (`bg cancel` SideEffecting, the other actions ReadOnly). Absent:
   * every call has {@link ToolDeclaration.effect}.
   */
  effectOf?(args: Args): ToolEffect;
  /**
   * What a call's permission rules match on (docs/permissions.md), taken from
   * its validated arguments as written; activities/permission/subject.ts
   * normalizes it (real paths, parsed commands). Absent: the call has no
   * subject and only whole-tool rules (and `*`) speak for it.
   */
  subjectOf?(args: Args): SubjectSource;
  /**
   * The call is not an activity: the session workflow runs it as a child
   * workflow (workflows/delegation.ts) — `task`: a child `session`;
   * `council`: a `council` workflow (DC14). Absent: a `tool_<name>` activity.
   * A tool that sets it is declared as a {@link DelegatingToolDeclaration}.
   */
  delegation?: DelegationKind;
  /**
   * Extra notes for the model when the arguments fail validation (DC10):
   * given the raw arguments and the schema's issues, at most a few short
   * lines appended after the issue list. Absent: none.
   */
  argumentNotes?(raw: unknown, issues: readonly { path: readonly PropertyKey[]; code?: string }[]): string[];
  /**
   * Issue 13: true for a call expected to finish in well under a second —
   * a short read of the workspace or of durable state — which the session
   * workflow then runs first as a Temporal local activity (in the worker
   * that runs the workflow task: no activity task, no poll), falling back
   * to the regular activity when it fails, times out or cannot run there.
   * Only honoured for a `Safe` call whose effect is `ReadOnly` (running it
   * twice is harmless). Part of the workflow's command sequence: changing
   * which calls answer true needs a new `patched()` id (workflows/local-tools.ts).
   * Absent: never local.
   */
  runsLocally?(args: Args): boolean;
}

/** How a delegating tool's calls run (see {@link ToolDeclaration.delegation}). */
export type DelegationKind = 'task' | 'council';

/**
 * The declaration of a delegating tool (DC14: `task`, `council_run`), a kind
 * of its own: `delegation` is required, and the activity-side registry
 * (activities/tools/index.ts) gives such a tool a description and JSON
 * Schema but no body — no `tool_<name>` activity exists for it.
 */
export type DelegatingToolDeclaration<Args = unknown> = ToolDeclaration<Args> & { delegation: DelegationKind };

/**
 * The raw material of a call's permission subject (see
 * {@link ToolDeclaration.subjectOf}): `paths` as the arguments spell them,
 * `command` bash source (and the `workdir` it runs in, relative to the
 * workspace root, for its write targets), `patch` an apply_patch text (every file it adds,
 * deletes, updates or moves to), `url` a URL as written (`webfetch`; matched without its query,
 * core/permission/url.ts).
 */
export type SubjectSource =
  | { kind: 'paths'; paths: string[] }
  | { kind: 'command'; command: string; workdir?: string }
  | { kind: 'patch'; patch: string }
  | { kind: 'url'; url: string };

/** What an argument field listed in {@link ToolDeclaration.changeArgs} holds. */
export type ChangeArg = 'patch' | 'content';

/** How a tool's background work runs (see {@link ToolDeclaration.background}). */
export interface BackgroundDeclaration<Args = unknown> {
  /** The work's own time limit for one call, in ms. */
  limitMs(args: Args): number;
  /** The longest limit any call can have, in ms (used when the arguments travel by reference). */
  maxLimitMs: number;
  /** One-line label of the work for the Temporal UI (e.g. the command's first line). */
  label(args: Args): string;
}

/** Workflow-side effect of scheduling one call (see {@link ToolDeclaration.onSchedule}). */
export interface ScheduleEffect {
  /** A background task id whose cancellation scope the workflow cancels (BG1). */
  cancelsBackgroundTask?: string;
  /**
   * The workflow waits (a workflow timer, never a sleeping activity) until
   * this background task settles or `timeoutMs` passes, then runs the call
   * (`job wait`, DC15).
   */
  waitsForBackgroundTask?: { taskID: string; timeoutMs: number };
}

/** TD8 categories of a rejected (blocked) call. */
export type BlockedCategory = 'invalid_arguments' | 'unavailable' | 'denied';

/** Outcome of one tool call as persisted. */
export type ToolOutcome = 'ok' | 'error' | 'blocked' | 'uncertain';

/**
 * What a tool implementation returns. `output` is the model-visible text;
 * `isError` marks an `error` outcome (the tool ran and failed in a typed way).
 * `data` is small structured metadata stored beside the output (e.g. a read
 * credential, match counts, truncation flags).
 */
export interface ToolResult {
  output: string;
  isError: boolean;
  /** Stable code when isError (e.g. `rg_missing`, `invalid_arguments`, `not_found`). */
  errorCode?: ErrorCode;
  /**
   * The tool ran but could not settle what happened (SH5 a cancelled command
   * that had not exited, lost output capture): recorded as outcome
   * `uncertain`, never as `ok`.
   */
  uncertain?: boolean;
  data?: Record<string, unknown>;
}

/**
 * Small facts of one result that decide or explain its outcome, returned in
 * the `tool_<name>` activity result so the Temporal UI tells the truth
 * (never the output itself).
 */
export interface ToolActivityFacts {
  /** true when the call did not achieve what it was asked (e.g. a shell exit ≠ 0). */
  failed?: boolean;
  /** Shell: the command's exit code. */
  exitCode?: number;
  /** Shell: the signal that killed the command. */
  signal?: string;
  /** Shell: the call's time limit in ms, set when the command hit it (the signal was then ours, sent at the limit). */
  timeLimitMs?: number;
  /** Shell: the receipt verdict (`passed`, `failed`, `unknown`…). */
  verdict?: string;
  /** apply_patch: the conflict kind that stopped the patch. */
  conflict?: string;
  /** TD9: the output was withheld to an artifact. */
  withheld?: boolean;
  /**
   * A delegation (`task`, issue 12): the child session, its role and how it
   * stands — its end for a foreground task, `running` for a background job
   * just started (with its `jobId`). `zuno run` shows it (client/render.ts).
   */
  child?: DelegationFact;
  /** A `council_run` call (issue 12): its Council's run id, status and valid reports against the quorum. */
  council?: { runId: string; status: string; valid: number; needed: number };
  /**
   * A successful work-state read (GP22 `ToolProgressObservation`): the
   * fingerprint of the authoritative Plan/Todo state it saw, never of its
   * arguments. The session workflow's stagnant-read guard compares it.
   */
  workState?: string;
}

/** The child of a delegated call, as its result reports it (see {@link ToolActivityFacts.child}). */
export interface DelegationFact {
  sessionId: string;
  agent: string;
  /** A ChildStatus (`completed`, `failed`, …), or `running` for a background job just started. */
  status: string;
  jobId?: string;
}

/** BG6 facts the workflow acts on (ToolActivityResult `background`). */
export interface BackgroundFacts {
  taskID: string;
  /** A call that handed out this task id; the workflow now runs the command. */
  started?: boolean;
  /** A read that observed the task's final state (consumes its completion report). */
  terminal?: boolean;
}
