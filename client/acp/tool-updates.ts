/**
 * One tool call as ACP `tool_call` / `tool_call_update` session updates
 * (SF12, SF13, SF15): kind and title, absolute locations, status, and the
 * content — the recorded diff of an edit, the model-visible output of other
 * calls, an interrupted call's verdict. Built from the tool-call row the
 * projection holds (arguments, result, output); pure.
 */
import type { SessionUpdate, ToolCallContent, ToolKind } from '@agentclientprotocol/sdk';
import type { ToolCallRow } from '../../activities/projection/index.js';
import { readsFailed } from '../commands/tool-record-view.js';
import { toolRecordFacts } from '../commands/tool-record-view.js';
import {
  actualTargets,
  diffContent,
  editLocations,
  editTitle,
  EDIT_TOOLS,
  expectedTargets,
} from './edit-projection.js';

/** Most characters of a call's output shown as its content (the whole output stays in `rawOutput`). */
export const OUTPUT_MAX_CHARS = 8_000;

const KIND: Record<string, ToolKind> = {
  read: 'read',
  glob: 'search',
  grep: 'search',
  write: 'edit',
  apply_patch: 'edit',
  edit: 'edit',
  shell: 'execute',
  bg: 'execute',
  plan_update: 'think',
  plan_get: 'think',
  todo_update: 'think',
  todo_get: 'think',
};

/** The ACP kind of a Zuno tool. */
export function toolKind(tool: string): ToolKind {
  return KIND[tool] ?? 'other';
}

type ToolCallStart = Extract<SessionUpdate, { sessionUpdate: 'tool_call' }>;
type ToolCallUpdate = Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }>;

/** What a started call's `tool_call` needs: the row (when stored), the event's summary. */
export interface CallFacts {
  rowId: string;
  tool: string;
  summary: string;
  row: ToolCallRow | null;
}

/** The path a `read`/`write` call names, if any. */
function argPath(argsJson: string | undefined): string | undefined {
  try {
    const p = (JSON.parse(argsJson ?? '{}') as { path?: unknown }).path;
    return typeof p === 'string' ? p : undefined;
  } catch {
    return undefined;
  }
}

/** Title and locations of a call: `Editing <files>` for edits (SF15), else its summary line. */
function titleAndLocations(workspace: string, c: CallFacts, done: boolean): Pick<ToolCallStart, 'title' | 'locations'> {
  if (EDIT_TOOLS.has(c.tool)) {
    const actual = done ? actualTargets(c.row?.result, argPath(c.row?.argsJson)) : [];
    const paths = actual.length > 0 ? actual : expectedTargets(c.tool, c.row?.argsJson ?? '');
    return { title: editTitle(paths), locations: editLocations(workspace, paths) };
  }
  const path = c.tool === 'read' ? argPath(c.row?.argsJson) : undefined;
  return { title: c.summary || c.tool, locations: path ? editLocations(workspace, [path]) : [] };
}

/** The arguments as the model sent them (parsed when they parse). */
function rawInput(row: ToolCallRow | null): unknown {
  if (!row) return undefined;
  try {
    return JSON.parse(row.argsJson);
  } catch {
    return row.argsJson;
  }
}

/** `tool_call`: a call started (status in_progress), or was first seen already `status`. */
export function toolCallStarted(
  workspace: string,
  c: CallFacts,
  status: ToolCallStart['status'] = 'in_progress',
): ToolCallStart {
  return {
    sessionUpdate: 'tool_call',
    toolCallId: c.rowId,
    ...titleAndLocations(workspace, c, false),
    kind: toolKind(c.tool),
    status,
    rawInput: rawInput(c.row),
  };
}

/** Plain text content. */
export function textContent(text: string): ToolCallContent {
  return { type: 'content', content: { type: 'text', text } };
}

function cut(text: string): string {
  return text.length > OUTPUT_MAX_CHARS
    ? `${text.slice(0, OUTPUT_MAX_CHARS)}\n… (output cut; the whole output is in rawOutput)`
    : text;
}

/**
 * `tool_call_update` for a call whose record is final: `completed` when it
 * did what it was asked, else `failed` (an error, a shell exit ≠ 0, an
 * uncertain outcome — SF15: an uncertain edit stays failed and keeps its
 * observed paths and diff). An edit that succeeded shows only its diff; a
 * failed edit with no diff only its error (never a fake diff); other calls
 * show their output and, for uncertain ones, the record's facts.
 */
export function toolCallEnded(workspace: string, c: CallFacts & { outcome: string; failed?: boolean }): ToolCallUpdate {
  const row = c.row;
  const failed = c.outcome === 'uncertain' || readsFailed(c.outcome, { failed: c.failed === true });
  const diffs = EDIT_TOOLS.has(c.tool) ? diffContent(workspace, row?.result, argPath(row?.argsJson)) : [];
  const facts = toolRecordFacts(row?.result).filter((l) => l.startsWith('uncertain:') || l.startsWith('stopped:'));
  const content: ToolCallContent[] = [...diffs];
  if (diffs.length === 0 || failed) {
    const text = [...(failed ? facts : []), row?.output ?? ''].filter((t) => t !== '').join('\n');
    if (text !== '') content.push(textContent(cut(text)));
  }
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: c.rowId,
    ...titleAndLocations(workspace, c, true),
    status: failed ? 'failed' : 'completed',
    content,
    rawOutput: { outcome: c.outcome, output: row?.output ?? null, result: row?.result ?? null },
  };
}

/** `tool_call_update` (failed) for a call rejected before it ran (TD8): the reason. */
export function toolCallBlocked(rowId: string, category: string, message: string): ToolCallUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: rowId,
    status: 'failed',
    content: [textContent(`blocked (${category}): ${message}`)],
  };
}

/**
 * `tool_call_update` (failed) of a call an interrupt ended (SF13): its
 * content is the verdict, the words `zuno session show` prints.
 */
export function toolCallInterrupted(rowId: string, verdict: string, outcome: string, cause: string): ToolCallUpdate {
  return {
    sessionUpdate: 'tool_call_update',
    toolCallId: rowId,
    status: 'failed',
    content: [textContent(verdict)],
    rawOutput: { outcome, cause, verdict },
  };
}
