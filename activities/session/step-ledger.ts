/**
 * The part ledger of one model step (PR9): the assistant message and every
 * output part, as writes in provider order, each tool call validated (TD8) and
 * planned for the workflow, reasoning capsules kept on their part (PR8).
 */
import { callSubject } from '../permission/subject.js';
import { assistantMessageId, partId, toolCallRowId } from '../../core/ids.js';
import { EV } from '../../core/events.js';
import type { AssistantPart } from '../../core/messages.js';
import { INLINE_ARGS_MAX_CHARS, type PlannedToolCall } from '../../core/session/tool-calls.js';
import { shownSubject } from '../../core/permission/shown.js';
import { sha256Hex } from '../../core/sha256.js';
import { toolDeclarations, validateToolCall, type ToolCallValidation } from '../../core/tools/registry.js';
import type { ToolDeclaration } from '../../core/tools/types.js';
import type { ProjectionWrite } from '../projection/types.js';
import { plannedWrites, type ToolCallIdentity } from './tool-records.js';
import type { McpCatalogTool } from '../mcp/types.js';
import { validateMcpCall } from '../mcp/validate-args.js';

/** Where a step's output goes. */
export interface LedgerTarget {
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
  /** The session's visible MCP tools by wire name (issue 30): a call of one is validated against its server's schema and carries its facts. */
  mcp?: ReadonlyMap<string, McpCatalogTool>;
  /** The names the request offered: what an `unavailable` refusal lists (absent: every declared tool). */
  offered?: readonly string[];
  /** The session's tools its settings leave out of the request, with why (`web_search` without `network.search`). */
  withheld?: ReadonlyMap<string, string>;
  /** Why an unoffered MCP-looking name is refused, when the step knows (mcp-offer.ts `refusedMcpCall`). */
  refusedMcp?: (name: string) => { category: 'denied' | 'unavailable'; message: string } | undefined;
}

/**
 * The writes of the assistant message and its parts at consecutive
 * positions in the order given (provider order), all sharing the message's
 * creation time so hydration reproduces that order — for the step's one
 * batch (issue 13). A reasoning part keeps its capsule in
 * `metadata.providerReasoning` (stored as session content, not redacted)
 * and is announced by a `provider.reasoning.item` event carrying it. Each
 * tool call gets a row: validated calls are planned (`pending`); malformed
 * or unknown calls are settled `blocked` at once with a
 * `tool.dispatch.blocked` event (tool-records.ts `plannedWrites`).
 * Idempotent (upserts keyed by position).
 * @returns the writes, and the planned calls in model order (blocked ones included, marked).
 */
export async function stepLedger(
  target: LedgerTarget,
  parts: AssistantPart[],
): Promise<{ writes: ProjectionWrite[]; planned: PlannedToolCall[] }> {
  const { sessionId, turn, step, atMs } = target;
  const messageId = assistantMessageId(turn, step);
  const writes: ProjectionWrite[] = [
    { kind: 'message', row: { id: messageId, sessionId, role: 'assistant', turn, step, createdAtMs: atMs } },
  ];
  const planned: PlannedToolCall[] = [];
  let position = target.firstPosition;
  for (const part of parts) {
    const common = { sessionId, messageId, turn, step, position, createdAtMs: atMs };
    const textPart = (kind: 'reasoning' | 'text', text: string, metadata: Record<string, unknown> | null) =>
      writes.push({ kind: 'part', row: { ...common, id: partId(turn, step, position, kind), kind, text, metadata } });
    if (part.kind === 'reasoning') {
      textPart('reasoning', part.text, part.providerReasoning ? { providerReasoning: part.providerReasoning } : null);
      if (part.providerReasoning) {
        writes.push({
          kind: 'event',
          event: {
            id: `${partId(turn, step, position, 'reasoning')}:capsule`,
            sessionId,
            type: EV.reasoningItem,
            data: { messageId, position, ...part.providerReasoning },
            atMs,
          },
        });
      }
    } else if (part.kind === 'text') {
      textPart('text', part.text, target.requestId ? { requestId: target.requestId } : null);
    } else {
      const call = await planToolCall(target, position, planned.length, part);
      planned.push(call.plan);
      writes.push(...plannedWrites(call.identity, { messageId, atMs }, call.plan.blocked));
    }
    position += 1;
  }
  return { writes, planned };
}

/** Validates one call (TD8) and returns its plan and its row's identity. */
async function planToolCall(
  target: LedgerTarget,
  position: number,
  index: number,
  call: Extract<AssistantPart, { kind: 'tool_call' }>,
): Promise<{ plan: PlannedToolCall; identity: ToolCallIdentity }> {
  const { sessionId, turn, step } = target;
  const rowId = toolCallRowId(turn, step, position);
  const verdict = target.toolsDisabled
    ? ({
        ok: false,
        category: 'unavailable',
        message:
          'tools are disabled in this turn: the goal is paused on an unknown outcome; explain and propose, the user decides (Resume goal / Keep paused)',
      } as const)
    : validateCall(target, call);
  const p: PlannedToolCall = { rowId, position, index, callId: call.callId, name: call.name };
  const mcpTool = target.mcp?.get(call.name);
  if (verdict.ok && mcpTool) p.mcp = mcpTool.facts;
  if (verdict.ok && call.argsJson.length > INLINE_ARGS_MAX_CHARS) {
    p.argsInProjection = true;
    p.summary = verdict.declaration.summarize(verdict.args as never);
  } else if (verdict.ok) p.args = verdict.args;
  else p.blocked = { category: verdict.category, message: verdict.message };
  if (verdict.ok && target.subjectsIn !== undefined) {
    p.subject = await callSubject(call.name, verdict.args, target.subjectsIn);
    if (p.argsInProjection) {
      // The workflow will not hold these arguments: it gets what an approval would show by digest (issue 26).
      const shown = shownSubject(call.name, verdict.args, p.subject);
      p.shown = { kind: shown.kind, digest: sha256Hex(shown.text), chars: shown.text.length };
    }
  }
  return {
    plan: p,
    identity: {
      id: rowId,
      sessionId,
      turn,
      step,
      position,
      callId: call.callId,
      tool: call.name,
      argsJson: call.argsJson,
    },
  };
}

/** TD8 for one call: an MCP tool against its server's schema, a built-in one against its declaration (within the catalog). */
function validateCall(target: LedgerTarget, call: { name: string; argsJson: string }): ToolCallValidation {
  const mcpTool = target.mcp?.get(call.name);
  if (mcpTool) return validateMcpCall(mcpTool, call.argsJson);
  const refused = target.refusedMcp?.(call.name);
  if (refused) return { ok: false, ...refused };
  // A tool the session's settings leave out says how to enable it.
  const withheld = target.withheld?.get(call.name);
  if (withheld) return { ok: false, category: 'unavailable', message: withheld };
  // A built-in tool the request did not offer (the Goal tools outside a Goal, tool_search with nothing deferred)
  // is not callable either; the model is told what it was offered (MCP tools included), not a reason from a body.
  if (target.offered && !target.offered.includes(call.name)) {
    const known = [...target.offered].sort().join(', ');
    return {
      ok: false,
      category: 'unavailable',
      message: `Tool "${call.name}" is not available. Available tools: ${known}.`,
    };
  }
  return validateToolCall(call.name, call.argsJson, target.catalog ? catalogDeclarations(target.catalog) : undefined);
}

/** The declarations of a catalog's tools, by name (what a narrowed session may call). */
function catalogDeclarations(catalog: readonly string[]): Record<string, ToolDeclaration> {
  return Object.fromEntries(catalog.flatMap((n) => (toolDeclarations[n] ? [[n, toolDeclarations[n]]] : [])));
}
