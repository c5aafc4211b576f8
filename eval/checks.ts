/**
 * The parts checkers are made of. Each looks at the workspace or at the
 * stored record (receipts), never at the model's words alone, and returns the
 * reason it fails, or null.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SessionRecord, ToolCallRow } from './receipts.js';
import { taskDir } from './paths.js';
import type { Attempt, CheckResult, TaskDef } from './types.js';
import { changedFiles } from './workspace.js';
import type { ZunoEnv } from './zuno.js';

/** What a checker is given: the task, its workspace after the attempt, the attempt, and the home to read. */
export interface CheckContext {
  task: TaskDef;
  ws: string;
  attempt: Attempt;
  z: ZunoEnv;
}

/** A task's checker. */
export type Checker = (ctx: CheckContext) => Promise<CheckResult>;

/** The verdict of a list of failure reasons (nulls are checks that held). */
export function verdict(reasons: (string | null)[]): CheckResult {
  const failed = reasons.filter((r): r is string => r !== null);
  return { pass: failed.length === 0, reasons: failed };
}

/**
 * Runs `command` with sh in `ws` (2 minutes at most); its exit code (null on
 * timeout) and a short gist of its output: node:test's failing test names
 * (`not ok N - name`), else the output's last 200 characters.
 */
export function shellIn(ws: string, command: string): { code: number | null; tail: string } {
  const r = spawnSync('sh', ['-c', command], { cwd: ws, encoding: 'utf8', timeout: 120_000 });
  const out = `${r.stdout ?? ''}${r.stderr ?? ''}`.trim();
  const failed = [...out.matchAll(/^not ok \d+ - (.+)$/gm)].map((m) => m[1]!);
  return {
    code: r.status,
    tail: failed.length ? `failing: ${failed.join('; ')}` : out.slice(-200).replace(/\s+/g, ' '),
  };
}

/** Fails when `command` does not exit 0 in `ws` (the checker runs the test itself). */
export function commandPasses(ws: string, command: string): string | null {
  const r = shellIn(ws, command);
  return r.code === 0 ? null : `\`${command}\` exits ${r.code} in the workspace: ${r.tail}`;
}

/** Copies eval/tasks/<id>/<sub>/ over the workspace (the task's own tests, pristine or hidden). */
export function restoreTaskFiles(task: TaskDef, ws: string, sub = 'files'): void {
  const dir = join(taskDir(task.id), sub);
  if (existsSync(dir)) cpSync(dir, ws, { recursive: true });
}

/** Fails for each reintroduced bug text still in its file. */
export function bugGone(task: TaskDef, ws: string): string | null {
  const left = task.bug.filter((r) => {
    const path = join(ws, r.file);
    return existsSync(path) && readFileSync(path, 'utf8').includes(r.to);
  });
  return left.length === 0 ? null : `the bug is still in ${left.map((r) => r.file).join(', ')}`;
}

/** Fails when a changed path matches none of `allowed` (exact paths or patterns). */
export function onlyChanged(ws: string, allowed: (string | RegExp)[]): string | null {
  const ok = (p: string) => allowed.some((a) => (typeof a === 'string' ? a === p : a.test(p)));
  const extra = changedFiles(ws).filter((p) => !ok(p));
  return extra.length === 0 ? null : `changed files outside the task: ${extra.join(', ')}`;
}

/** Fails when the workspace differs from HEAD at all (a read-only task). */
export function unchanged(ws: string): string | null {
  const changed = changedFiles(ws);
  return changed.length === 0 ? null : `a read-only task changed ${changed.join(', ')}`;
}

/** End time (ms) of the session's last successful file edit (apply_patch, write), 0 when none. */
export function lastEditEnd(s: SessionRecord): number {
  const edits = s.toolCalls.filter((c) => (c.tool === 'apply_patch' || c.tool === 'write') && c.outcome === 'ok');
  return Math.max(0, ...edits.map((c) => c.endedAtMs ?? 0));
}

/** Shell calls whose stored verification receipt passed and whose command matches `command`. */
export function passingReceipts(s: SessionRecord, command: RegExp): ToolCallRow[] {
  return s.toolCalls.filter(
    (c) => c.tool === 'shell' && c.result?.receipt?.verdict === 'passed' && command.test(c.result.receipt.command),
  );
}

/** Fails unless a passing receipt of `command` started after the last edit (the fix was proven, not claimed). */
export function provenAfterLastEdit(s: SessionRecord, command: RegExp): string | null {
  const after = lastEditEnd(s);
  const proof = passingReceipts(s, command).some((c) => (c.startedAtMs ?? 0) >= after);
  return proof ? null : `no passing verification receipt of ${command} after the last edit`;
}

/** `file:line` citations in a text (paths with a dot-extension), in order. */
export function citations(text: string): { file: string; line: number }[] {
  return [...text.matchAll(/([\w./-]+\.[a-z]+):(\d+)/g)].map((m) => ({ file: m[1]!, line: Number(m[2]) }));
}

/** The text of line `line` (1-based) of `file` in `ws`, or null when there is none. */
export function lineAt(ws: string, file: string, line: number): string | null {
  const path = join(ws, file);
  if (!existsSync(path)) return null;
  return readFileSync(path, 'utf8').split('\n')[line - 1] ?? null;
}

/** Fails unless `text` cites a `file:line` of the workspace whose line matches `pattern` (and the file `file`). */
export function citesLine(ws: string, text: string, pattern: RegExp, file?: RegExp): string | null {
  const good = citations(text).some(
    (c) => (!file || file.test(c.file)) && pattern.test(lineAt(ws, c.file, c.line) ?? ''),
  );
  const cited = citations(text).map((c) => `${c.file}:${c.line}`);
  return good ? null : `no cited file:line holds ${pattern} (cited: ${cited.join(', ') || 'none'})`;
}
