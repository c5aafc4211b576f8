/**
 * The part ledger of one model step (PR9): the assistant message and every
 * output part written in provider order, each tool call validated (TD8) and
 * planned for the workflow, reasoning capsules kept on their part (PR8).
 */
import { callSubject } from '../permission/subject.js';
import { assistantMessageId, partId, toolCallRowId } from '../../core/ids.js';
import { EV } from '../../core/events.js';
import type { AssistantPart } from '../../core/messages.js';
import { INLINE_ARGS_MAX_CHARS, type PlannedToolCall } from '../../core/session-contract.js';
import { toolDeclarations, validateToolCall } from '../../core/tools/registry.js';
import type { ToolDeclaration } from '../../core/tools/types.js';
import type { ProjectionStore } from '../projection/types.js';
import { recordPlanned } from './tool-records.js';

/** Where a step's output goes. */
export interface LedgerTarget {
  store: ProjectionStore;
  sessionId: string;
  turn: number;
  step: number;
  /** First free part position of the step (after the user inputs it carried). */
  firstPosition: number;
  /** Provider request id, kept on text parts for diagnostics. */
  requestId?: string;
  atMs: number;
  /** GL36: the request offered no tools — every call is blocked `unavailable` before it reaches the dispatcher. */
  toolsDisabled?: boolean;
  /** The workspace, when the session has a permission policy: each valid call gets its subject (what the rules match). */
  subjectsIn?: string;
  /** The tools the session may call (its catalog, DC2/DC9); a call of any other tool is blocked `unavailable`. Absent: every declared tool. */
  catalog?: readonly string[];
}

/**
 * Writes the assistant message and its parts at consecutive positions in
 * the order given (provider order), all sharing the message's creation time
 * so hydration reproduces that order. A reasoning part keeps its capsule in
 * `metadata.providerReasoning` (stored as session content, not redacted)
 * and is announced by a `provider.reasoning.item` event carrying it. Each
 * tool call gets a row: validated calls are planned (`pending`); malformed
 * or unknown calls are settled `blocked` at once with a
 * `tool.dispatch.blocked` event. Idempotent (upserts keyed by position).
 * @returns the planned calls in model order (blocked ones included, marked).
 */
export async function writeStepLedger(target: LedgerTarget, parts: AssistantPart[]): Promise<PlannedToolCall[]> {
  const { store, sessionId, turn, step, atMs } = target;
  const messageId = assistantMessageId(turn, step);
  await store.upsertMessage({ id: messageId, sessionId, role: 'assistant', turn, step, createdAtMs: atMs });
  const planned: PlannedToolCall[] = [];
  let position = target.firstPosition;
  for (const part of parts) {
    const common = { sessionId, messageId, turn, step, position, createdAtMs: atMs };
    const textPart = (kind: 'reasoning' | 'text', text: string, metadata: Record<string, unknown> | null) =>
      store.upsertPart({ ...common, id: partId(turn, step, position, kind), kind, text, metadata });
    if (part.kind === 'reasoning') {
      await textPart(
        'reasoning',
        part.text,
        part.providerReasoning ? { providerReasoning: part.providerReasoning } : null,
      );
      if (part.providerReasoning) {
        await store.appendEvent({
          id: `${partId(turn, step, position, 'reasoning')}:capsule`,
          sessionId,
          type: EV.reasoningItem,
          data: { messageId, position, ...part.providerReasoning },
          atMs,
        });
      }
    } else if (part.kind === 'text') {
      await textPart('text', part.text, target.requestId ? { requestId: target.requestId } : null);
    } else {
      planned.push(await planToolCall(target, messageId, position, planned.length, part));
    }
    position += 1;
  }
  return planned;
}

/** Validates one call (TD8), records it (tool-records.ts: row, part, blocked event) and returns its plan. */
async function planToolCall(
  target: LedgerTarget,
  messageId: string,
  position: number,
  index: number,
  call: Extract<AssistantPart, { kind: 'tool_call' }>,
): Promise<PlannedToolCall> {
  const { store, sessionId, turn, step, atMs } = target;
  const rowId = toolCallRowId(turn, step, position);
  const verdict = target.toolsDisabled
    ? ({
        ok: false,
        category: 'unavailable',
        message:
          'tools are disabled in this turn: the goal is paused on an unknown outcome; explain and propose, the user decides (Resume goal / Keep paused)',
      } as const)
    : validateToolCall(call.name, call.argsJson, target.catalog ? catalogDeclarations(target.catalog) : undefined);
  const p: PlannedToolCall = { rowId, position, index, callId: call.callId, name: call.name };
  if (verdict.ok && call.argsJson.length > INLINE_ARGS_MAX_CHARS) {
    p.argsInProjection = true;
    p.summary = verdict.declaration.summarize(verdict.args as never);
  } else if (verdict.ok) p.args = verdict.args;
  else p.blocked = { category: verdict.category, message: verdict.message };
  if (verdict.ok && target.subjectsIn !== undefined)
    p.subject = await callSubject(call.name, verdict.args, target.subjectsIn);
  await recordPlanned(
    store,
    { id: rowId, sessionId, turn, step, position, callId: call.callId, tool: call.name, argsJson: call.argsJson },
    { messageId, atMs },
    p.blocked,
  );
  return p;
}

/** The declarations of a catalog's tools, by name (what a narrowed session may call). */
function catalogDeclarations(catalog: readonly string[]): Record<string, ToolDeclaration> {
  return Object.fromEntries(catalog.flatMap((n) => (toolDeclarations[n] ? [[n, toolDeclarations[n]]] : [])));
}
