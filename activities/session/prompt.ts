import type {
  AssistantPart,
  ModelMessage,
  ProviderReasoning,
  SystemSegment,
  ToolCallRequest,
} from '../../core/messages.js';
import type { Transcript } from '../projection/types.js';

/** Stable segment id of the base system prompt (SE28). */
export const BASE_SEGMENT_ID = 'system.base';

/**
 * The system prompt of a session: who the agent is and where it works.
 * `workspace` is the absolute workspace root.
 */
export function systemPrompt(workspace: string): string {
  return [
    'You are Zuno, a coding agent. You work in the workspace directory',
    `${workspace} using the tools offered to you. Paths are relative to the workspace.`,
    'Inspect before you conclude: read and search the code rather than guessing.',
    'When the task is done, answer with a concise final message and no tool calls.',
  ].join(' ');
}

/**
 * Rebuilds the provider-neutral conversation from stored rows (SE9: every
 * segment of a request is reconstructible from the projection). Order: for
 * each (turn, step): user inputs of that step, the assistant message (its
 * parts in provider order, PR9: reasoning with any stored capsule, text,
 * tool calls with the provider's own argument bytes; plus the joined-text /
 * call-list view), then one tool message per call in call order.
 * A call with no stored result yet (never expected) yields an explicit
 * placeholder so the provider still sees a paired result.
 * `system` are the system-prompt segments in order (SE28: the base prompt,
 * then the rule files in force); each becomes one leading system message
 * carrying its segment id, which every surface places where it expects
 * system text (Chat `system`, Responses `instructions`, Anthropic `system`).
 */
export function transcriptToMessages(t: Transcript, system: readonly SystemSegment[]): ModelMessage[] {
  const messages: ModelMessage[] = system.map((s) => ({ role: 'system', text: s.text, segment: s.segment }));
  const key = (turn: number, step: number) => turn * 1_000_000 + step;
  const steps = new Map<number, { turn: number; step: number }>();
  for (const p of t.parts) steps.set(key(p.turn, p.step), { turn: p.turn, step: p.step });
  const ordered = [...steps.values()].sort((a, b) => key(a.turn, a.step) - key(b.turn, b.step));
  const messageRole = new Map(t.messages.map((m) => [m.id, m.role]));
  const callsByRow = new Map(t.toolCalls.map((c) => [c.id, c]));
  for (const { turn, step } of ordered) {
    const parts = t.parts.filter((p) => p.turn === turn && p.step === step).sort((a, b) => a.position - b.position);
    let text = '';
    const calls: ToolCallRequest[] = [];
    const ordered: AssistantPart[] = [];
    const rowIds: string[] = [];
    for (const p of parts) {
      const role = messageRole.get(p.messageId);
      if (role === 'user' && p.kind === 'text') messages.push({ role: 'user', text: p.text ?? '' });
      else if (role === 'assistant' && p.kind === 'text') {
        text += p.text ?? '';
        ordered.push({ kind: 'text', text: p.text ?? '' });
      } else if (role === 'assistant' && p.kind === 'reasoning') {
        const capsule = (p.metadata as { providerReasoning?: ProviderReasoning } | null | undefined)?.providerReasoning;
        ordered.push({ kind: 'reasoning', text: p.text ?? '', ...(capsule ? { providerReasoning: capsule } : {}) });
      } else if (role === 'assistant' && p.kind === 'tool_call' && p.toolCallId) {
        const row = callsByRow.get(p.toolCallId);
        if (row) {
          // The provider's own argument bytes, never re-serialized (PR8, PR10).
          const call = { callId: row.callId, name: row.tool, argsJson: row.argsJson };
          calls.push(call);
          ordered.push({ kind: 'tool_call', ...call });
          rowIds.push(row.id);
        }
      }
    }
    if (text === '' && calls.length === 0) continue; // nothing but reasoning: no output to explain
    messages.push({ role: 'assistant', text, toolCalls: calls, parts: ordered });
    for (const rowId of rowIds) {
      const row = callsByRow.get(rowId)!;
      messages.push({
        role: 'tool',
        callId: row.callId,
        name: row.tool,
        content: row.output ?? `(no result was recorded for this call; its status is ${row.status})`,
      });
    }
  }
  return messages;
}
