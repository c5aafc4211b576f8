import type {
  AssistantPart,
  ModelMessage,
  ProviderReasoning,
  SystemSegment,
  ToolCallRequest,
} from '../../core/messages.js';
import type { PartRow, ToolCallRow, TranscriptRows } from '../projection/types.js';

/**
 * Rebuilds the provider-neutral conversation from stored rows (SE9: every
 * segment of a request is reconstructible from the projection): the
 * system segments, then {@link stepsToMessages} of the rows.
 * `system` are the system-prompt segments in order (SE28: the base prompt,
 * then the rule files in force); each becomes one leading system message
 * carrying its segment id, which every surface places where it expects
 * system text (Chat `system`, Responses `instructions`, Anthropic `system`).
 */
export function transcriptToMessages(t: TranscriptRows, system: readonly SystemSegment[]): ModelMessage[] {
  return [...systemMessages(system), ...stepsToMessages(t)];
}

/** One leading system message per segment, in order. */
export function systemMessages(system: readonly SystemSegment[]): ModelMessage[] {
  return system.map((s) => ({ role: 'system', text: s.text, segment: s.segment }));
}

/** The (turn, step) of a row as one sortable number. */
const stepKey = (turn: number, step: number) => turn * 1_000_000 + step;

/**
 * The conversation of the steps the rows hold, in step order. For each
 * (turn, step): the user inputs of that step, the assistant message (its
 * parts in provider order, PR9: reasoning with any stored capsule, text,
 * tool calls with the provider's own argument bytes; plus the joined-text
 * / call-list view), then one tool message per call in call order. A call
 * with no stored result yet yields an explicit placeholder so the provider
 * still sees a paired result. Linear in the rows (issue 13: a model step's
 * cost must not grow with the square of the session).
 */
export function stepsToMessages(t: TranscriptRows): ModelMessage[] {
  const byStep = new Map<number, PartRow[]>();
  for (const p of t.parts) {
    const k = stepKey(p.turn, p.step);
    const list = byStep.get(k);
    if (list) list.push(p);
    else byStep.set(k, [p]);
  }
  const messageRole = new Map(t.messages.map((m) => [m.id, m.role]));
  const callsByRow = new Map(t.toolCalls.map((c) => [c.id, c]));
  const messages: ModelMessage[] = [];
  for (const k of [...byStep.keys()].sort((a, b) => a - b)) {
    const parts = byStep.get(k)!.sort((a, b) => a.position - b.position);
    let text = '';
    const calls: ToolCallRequest[] = [];
    const ordered: AssistantPart[] = [];
    const rows: ToolCallRow[] = [];
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
          rows.push(row);
        }
      }
    }
    if (text === '' && calls.length === 0) continue; // nothing but reasoning: no output to explain
    messages.push({ role: 'assistant', text, toolCalls: calls, parts: ordered });
    for (const row of rows) {
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
