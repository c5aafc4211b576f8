/**
 * The shapes of the task eval (docs/eval.md, issue 32 item 4): a task's
 * definition (eval/tasks/<id>/task.json), one attempt at it, and what a
 * checker returns.
 */

/** How a task is driven: `zuno run`, `zuno goal start`, `zuno council run`, or a `zuno run` that must delegate. */
export type TaskMode = 'run' | 'goal' | 'council' | 'delegate';

/** An exact string replacement that reintroduces the bug: `from` must occur exactly once in `file`. */
export interface Replacement {
  /** Path relative to the package root. */
  file: string;
  from: string;
  /** The buggy text; non-empty, so a checker can tell whether it is still there. */
  to: string;
}

/** One task: a real npm package, a reintroduced bug, what zuno is asked, and how. */
export interface TaskDef {
  id: string;
  title: string;
  /** The tarball `npm pack <name>@<version>` gives, pinned by its sha512 integrity (`sha512-<base64>`). */
  package: { name: string; version: string; integrity: string };
  /** Applied in order after the pristine package (and the task's files/) are committed. */
  bug: Replacement[];
  /** council: the bug becomes its own second commit with this message (the change the Council reviews). */
  bugCommit?: string;
  mode: TaskMode;
  /** The agent role (`--agent`); council seats have their own. */
  role: 'build' | 'plan' | 'deep';
  /** The prompt, the Goal's objective or the Council's question. */
  prompt: string;
  /** goal mode: the criterion, the command that owns it, and the budgets that bound a real model. */
  goal?: { criterion: string; check: string; toolCallBudget: number; timeBudget: string };
  /** council mode: the git range reviewed (default HEAD~1..HEAD). */
  diff?: string;
}

/** What one command of an attempt left: exit code, output, wall time (ms). */
export interface CommandResult {
  code: number | null;
  stdout: string;
  stderr: string;
  wallMs: number;
  timedOut: boolean;
}

/** One attempt at a task: the driving command and the ids it printed. */
export interface Attempt {
  command: CommandResult;
  sessionId: string | null;
  goalId: string | null;
  councilId: string | null;
}

/** A checker's verdict: `pass` exactly when `reasons` (what is wrong, one line each) is empty. */
export interface CheckResult {
  pass: boolean;
  reasons: string[];
}
