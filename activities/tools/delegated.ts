/**
 * Bodies of the delegation tools `task` and `council_run` (DC14). Their
 * calls never run as activities: the session workflow starts a child
 * workflow for them (workflows/delegation.ts) and the worker registers no
 * `tool_task` / `tool_council_run` activity. These bodies exist so THE tool
 * list and the activity-side registry stay one list (descriptions, JSON
 * Schemas); a direct call answers with a typed error, never a result.
 */
import type { CouncilRunArgs } from '../../core/tools/council-run.js';
import type { TaskArgs } from '../../core/tools/task.js';
import type { ToolResult } from '../../core/tools/types.js';
import type { ToolBody } from './tool-body.js';

function runsInWorkflow(name: string): ToolResult {
  return {
    output: `${name} runs as a child workflow started by the session workflow, not as an activity`,
    isError: true,
    errorCode: 'not_an_activity',
  };
}

export const taskTool: ToolBody<TaskArgs> = { run: () => Promise.resolve(runsInWorkflow('task')) };
export const councilRunTool: ToolBody<CouncilRunArgs> = { run: () => Promise.resolve(runsInWorkflow('council_run')) };
