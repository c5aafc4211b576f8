/**
 * Helpers for the background-command tests: temp workspaces, contexts, and
 * a command printing known numbered lines. Real bash, real processes, real
 * files; nothing is mocked.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { BackgroundContext } from '../../../activities/tools/bg/index.js';
import { taskDir } from '../../../activities/tools/bg/index.js';
import type { BgStatus } from '../../../activities/tools/bg/types.js';
import type { ToolContext } from '../../../activities/tools/context.js';

export { alive, eventually, workspace } from '../shell/helpers.js';

export const SESSION = 'ses_bg_test';

let calls = 0;

/** A background context for `ws` with a fresh call id (override any field). */
export function bgCtx(ws: string, taskID: string, extra: Partial<BackgroundContext> = {}): BackgroundContext {
  calls++;
  return {
    workspace: ws,
    sessionId: SESSION,
    rowId: 'tc_1_0_0',
    callId: `call_${process.pid}_${calls}`,
    taskID,
    ...extra,
  };
}

/** A tool context for the `bg` tool in `ws`. */
export function toolCtx(ws: string, extra: Partial<ToolContext> = {}): ToolContext {
  return { workspace: ws, sessionId: SESSION, rowId: 'tc_1_0_0', callId: `call_bg_${++calls}`, ...extra };
}

/** `seq` command printing `line 00000001\n` … `line <n>\n` (14 bytes a line). */
export function numberedLines(n: number): string {
  return `seq -f 'line %08g' 1 ${n}`;
}

/** The exact bytes {@link numberedLines} prints. */
export function expectedLines(n: number): Buffer {
  const parts: string[] = [];
  for (let i = 1; i <= n; i++) parts.push(`line ${String(i).padStart(8, '0')}\n`);
  return Buffer.from(parts.join(''), 'utf8');
}

/** The stored status of a task of {@link SESSION}, or null. */
export function statusOf(ws: string, taskID: string, sessionId = SESSION): BgStatus | null {
  try {
    return JSON.parse(readFileSync(join(taskDir(ws, sessionId, taskID), 'status.json'), 'utf8')) as BgStatus;
  } catch {
    return null;
  }
}

/** Whether `file` exists under `ws`. */
export function exists(ws: string, file: string): boolean {
  try {
    readFileSync(join(ws, file));
    return true;
  } catch {
    return false;
  }
}
