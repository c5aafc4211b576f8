/**
 * A real SQLite projection store for the work-state tool tests, and tool
 * contexts whose `workState` port is the one the tool activity builds
 * (activities/session/work-state-port.ts) for a given tool call.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { openProjectionStore } from '../../../activities/projection/open.js';
import type { ProjectionStore } from '../../../activities/projection/types.js';
import { workStatePort } from '../../../activities/session/work-state-port.js';
import { toolImplementations } from '../../../activities/tools/index.js';
import type { ToolContext } from '../../../activities/tools/context.js';
import type { ToolResult } from '../../../core/tools/types.js';

/** The store of the enclosing file, opened before its tests and closed after. */
export function useWorkStore(): { store: ProjectionStore } {
  const handle = {} as { store: ProjectionStore };
  const dir = mkdtempSync(join(tmpdir(), 'zuno-work-store-'));
  beforeAll(async () => {
    handle.store = await openProjectionStore({ zunoDir: dir });
  });
  afterAll(async () => {
    await handle.store?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  return handle;
}

let calls = 0;

/**
 * Runs one call of a work-state tool through the registry (the shared
 * wrapper) as tool call `rowId`/`callId` of `sessionId`; a fresh call id
 * unless one is given (a second run of the same call passes the same one).
 */
export function callTool(
  store: ProjectionStore,
  sessionId: string,
  tool: 'plan_get' | 'plan_update' | 'todo_get' | 'todo_update',
  args: unknown,
  call: { rowId?: string; callId?: string } = {},
): Promise<ToolResult> {
  const n = calls++;
  const rowId = call.rowId ?? `tc_0_${n}_0`;
  const callId = call.callId ?? `call_${n}`;
  const ctx: ToolContext = {
    workspace: '/nonexistent',
    sessionId,
    rowId,
    callId,
    workState: workStatePort(store, { sessionId, rowId, callId, tool }),
  };
  return toolImplementations[tool]!.run(args, ctx);
}
