/**
 * Builds the ordered {@link AssistantPart} list of one model response (PR9:
 * provider order) from stream deltas, for every wire adapter.
 *
 * Order rule: a part takes its place when its first delta arrives. Unkeyed
 * text/reasoning deltas extend the last part when it is of the same kind and
 * unkeyed, else start a new part (so text → tool call → text gives three
 * parts). Keyed deltas (a provider block: Responses `output_index` /
 * `item_id`, Anthropic content-block `index`) always go to their own part,
 * wherever it is. Tool-call arguments keep growing in place while later
 * parts start (parallel calls streamed interleaved).
 */
import type { AssistantPart, ProviderReasoning, ToolCallRequest } from '../../core/messages.js';

/** Identity of a provider output block (a tool-call index, an item id, a content-block index). */
export type BlockKey = string | number;

/** A change to one tool call: set id/name (first value wins), append or replace argument text. */
export interface ToolCallPatch {
  /** Provider call id; the first non-empty value is kept. */
  callId?: string;
  /** Tool name; the first non-empty value is kept. */
  name?: string;
  /** Raw argument text to append (the provider's own bytes, never re-serialized). */
  argsDelta?: string;
  /** Raw argument text replacing what was streamed (e.g. a `.done` event's full value). */
  args?: string;
}

type Slot =
  | { kind: 'text'; key?: string; text: string }
  | { kind: 'reasoning'; key?: string; text: string; providerReasoning?: ProviderReasoning }
  | { kind: 'tool_call'; key: string; callId?: string; name?: string; args: string };

/** The assembled views of a response. */
export interface AssembledParts {
  /** Every part in provider order. */
  parts: AssistantPart[];
  /** All text parts joined. */
  text: string;
  /** All reasoning parts' text joined. */
  reasoning: string;
  /** The tool-call parts, in the order they started. */
  toolCalls: ToolCallRequest[];
}

/** Mutable ordered-parts builder; see the module comment for the order rule. */
export class PartsAssembler {
  private readonly slots: Slot[] = [];
  private readonly byKey = new Map<string, Slot>();

  /** Append assistant text; empty deltas are ignored. `block` keys a provider text block. */
  text(delta: string, block?: BlockKey): void {
    if (delta === '') return;
    const slot = this.flowSlot('text', block);
    slot.text += delta;
  }

  /** Append reasoning text; empty deltas are ignored. `block` keys a provider reasoning block. */
  reasoning(delta: string, block?: BlockKey): void {
    if (delta === '') return;
    const slot = this.flowSlot('reasoning', block);
    slot.text += delta;
  }

  /**
   * Set the whole text of the keyed text or reasoning part of `block` to a
   * provider's final value (e.g. a Responses `output_text.done`), replacing
   * what its deltas added up to. A part that has not started yet takes its
   * place now; an empty `text` then starts nothing.
   */
  setText(kind: 'text' | 'reasoning', block: BlockKey, text: string): void {
    if (text === '' && !this.byKey.has(`${kind}:${String(block)}`)) return;
    this.flowSlot(kind, block).text = text;
  }

  /**
   * Attach an opaque reasoning capsule (PR8) to the reasoning part of
   * `block`, creating an empty-text reasoning part there if none exists yet
   * (encrypted reasoning without a summary, Anthropic `redacted_thinking`).
   * Fields given replace earlier ones.
   */
  reasoningCapsule(block: BlockKey, capsule: ProviderReasoning): void {
    const slot = this.flowSlot('reasoning', block) as Extract<Slot, { kind: 'reasoning' }>;
    slot.providerReasoning = { ...slot.providerReasoning, ...capsule };
  }

  /** Start (on first sight) or update the tool call of `key`. */
  toolCall(key: BlockKey, patch: ToolCallPatch): void {
    const k = `tool_call:${String(key)}`;
    let slot = this.byKey.get(k) as Extract<Slot, { kind: 'tool_call' }> | undefined;
    if (slot === undefined) {
      slot = { kind: 'tool_call', key: String(key), args: '' };
      this.byKey.set(k, slot);
      this.slots.push(slot);
    }
    if (slot.callId === undefined && patch.callId !== undefined && patch.callId !== '') slot.callId = patch.callId;
    if (slot.name === undefined && patch.name !== undefined && patch.name !== '') slot.name = patch.name;
    if (patch.args !== undefined) slot.args = patch.args;
    else if (patch.argsDelta !== undefined) slot.args += patch.argsDelta;
  }

  /** Whether a tool call with this key has started. */
  hasToolCall(key: BlockKey): boolean {
    return this.byKey.has(`tool_call:${String(key)}`);
  }

  /** The provider call id of a started tool call, if known. */
  toolCallId(key: BlockKey): string | undefined {
    const s = this.byKey.get(`tool_call:${String(key)}`);
    return s?.kind === 'tool_call' ? s.callId : undefined;
  }

  /** Number of tool calls started. */
  get toolCallCount(): number {
    return this.slots.filter((s) => s.kind === 'tool_call').length;
  }

  /**
   * Snapshot the parts and their views. A tool call that never got an id is
   * given `fallbackCallId(key)` (default `call_<key>`); one without a name gets `''`.
   */
  result(fallbackCallId: (key: string) => string = (key) => `call_${key}`): AssembledParts {
    const parts: AssistantPart[] = [];
    const toolCalls: ToolCallRequest[] = [];
    let text = '';
    let reasoning = '';
    for (const s of this.slots) {
      if (s.kind === 'text') {
        parts.push({ kind: 'text', text: s.text });
        text += s.text;
      } else if (s.kind === 'reasoning') {
        const p: AssistantPart = { kind: 'reasoning', text: s.text };
        if (s.providerReasoning !== undefined) p.providerReasoning = { ...s.providerReasoning };
        parts.push(p);
        reasoning += s.text;
      } else {
        const call: ToolCallRequest = {
          callId: s.callId ?? fallbackCallId(s.key),
          name: s.name ?? '',
          argsJson: s.args,
        };
        parts.push({ kind: 'tool_call', ...call });
        toolCalls.push(call);
      }
    }
    return { parts, text, reasoning, toolCalls };
  }

  private flowSlot(
    kind: 'text' | 'reasoning',
    block: BlockKey | undefined,
  ): Extract<Slot, { kind: 'text' | 'reasoning' }> {
    if (block !== undefined) {
      const k = `${kind}:${String(block)}`;
      const known = this.byKey.get(k) as Extract<Slot, { kind: 'text' | 'reasoning' }> | undefined;
      if (known !== undefined) return known;
      const slot: Extract<Slot, { kind: 'text' | 'reasoning' }> = { kind, key: String(block), text: '' };
      this.byKey.set(k, slot);
      this.slots.push(slot);
      return slot;
    }
    const last = this.slots.at(-1);
    if (last !== undefined && last.kind === kind && last.key === undefined) return last;
    const slot: Extract<Slot, { kind: 'text' | 'reasoning' }> = { kind, text: '' };
    this.slots.push(slot);
    return slot;
  }
}
