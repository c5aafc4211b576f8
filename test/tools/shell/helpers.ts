/**
 * Helpers for the shell engine tests: temp workspaces and a shell context.
 * Real bash, real processes, real files; nothing is mocked.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach } from 'vitest';
import { runShell, type ShellRunContext } from '../../../activities/tools/shell/index.js';
import type { ShellOutcome } from '../../../activities/tools/shell/types.js';

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A fresh temp workspace, removed after the test. */
export function workspace(): string {
  const d = mkdtempSync(join(tmpdir(), 'zuno-shell-'));
  dirs.push(d);
  return d;
}

let calls = 0;

/** A shell context for `ws` with a fresh call id (override any field). */
export function shellCtx(ws: string, extra: Partial<ShellRunContext> = {}): ShellRunContext {
  calls++;
  return {
    workspace: ws,
    sessionId: 'ses_test',
    rowId: 'tc_1_0_0',
    callId: `call_${process.pid}_${calls}`,
    artifactDir: join(ws, '.zuno', 'artifacts'),
    ...extra,
  };
}

/** Runs `command` in `ws` (args and context overridable). */
export function sh(
  ws: string,
  command: string,
  args: Record<string, unknown> = {},
  extra: Partial<ShellRunContext> = {},
): Promise<ShellOutcome> {
  return runShell({ command, ...args }, shellCtx(ws, extra));
}

/** The output after the header block (status, receipt, limitations, written) and its blank line. */
export function body(o: ShellOutcome): string {
  const i = o.output.indexOf('\n\n');
  return i >= 0 ? o.output.slice(i + 2) : '';
}

/**
 * Whether a process is alive: present in /proc and not a zombie (a zombie
 * has exited; it only waits for its parent to reap it).
 */
export function alive(pid: number): boolean {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    const state = stat.slice(stat.lastIndexOf(')') + 2, stat.lastIndexOf(')') + 3);
    return state !== 'Z' && state !== 'X';
  } catch {
    return false;
  }
}

/** Polls `cond` every 20 ms until it holds or `ms` pass; returns its last value. */
export async function eventually(cond: () => boolean, ms = 3000): Promise<boolean> {
  const end = Date.now() + ms;
  while (Date.now() < end) {
    if (cond()) return true;
    await new Promise((r) => setTimeout(r, 20));
  }
  return cond();
}
