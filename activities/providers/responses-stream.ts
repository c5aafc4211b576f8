/**
 * OpenAI Responses stream assembly (pure, no I/O): folds parsed stream
 * events into ordered parts (PR9) with reasoning capsules (PR8), the
 * terminal status and usage (PR11). Error events (`error`,
 * `response.failed`) are the caller's (they need the transport).
 */
import type { ProviderReasoning, Usage } from '../../core/messages.js';
import { PartsAssembler, type AssembledParts } from './parts-assembler.js';
import { mapResponsesUsage } from './responses-usage.js';
import type { DeltaHandlers } from './types.js';

/** Who produced the capsules of this stream (PR8: replayed only to the same provider/model). */
export interface CapsuleOrigin {
  /** Configured provider id. */
  provider: string;
  /** The requested (catalog) model id, not the snapshot the response names. */
  model: string;
  /** Wall clock, ms since epoch. */
  now(): number;
}

/** Separator between the summary texts of one reasoning item in its part's text. */
export const SUMMARY_SEPARATOR = '\n\n';

type Obj = Record<string, unknown>;
const isObject = (v: unknown): v is Obj => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';
/** A `content_index` / `summary_index`; 0 when absent or invalid. */
const index = (v: unknown): number => (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v < 1024 ? v : 0);

/** What is known of one output item. */
interface ItemState {
  /** Item id (`rs_…`, `msg_…`, `fc_…`), when seen. */
  id?: string;
  /** Texts of a message item by `content_index`. */
  contents: string[];
  /** Summary texts of a reasoning item by `summary_index`. */
  summaries: string[];
  /** `output_item.done` (or the terminal response) settled it. */
  done: boolean;
}

/** Texts of `summary_text` entries / `output_text` and `refusal` content parts of a finished item. */
function summaryTexts(item: Obj): string[] {
  return Array.isArray(item.summary) ? item.summary.filter(isObject).map((s) => str(s.text) ?? '') : [];
}
function contentTexts(item: Obj): string[] {
  if (!Array.isArray(item.content)) return [];
  return item.content
    .filter((c): c is Obj => isObject(c) && (c.type === 'output_text' || c.type === 'refusal'))
    .map((c) => str(c.text) ?? str(c.refusal) ?? '');
}
const joinSummaries = (texts: readonly string[]): string => texts.filter((t) => t !== '').join(SUMMARY_SEPARATOR);

/**
 * State of one Responses stream.
 *
 * - Items are keyed by `output_index` (else by `item_id`), and a part takes
 *   its place when its first content arrives: a function or custom tool call
 *   at `output_item.added`, text at its first `output_text.delta` (or
 *   `refusal.delta`), reasoning at its first summary delta or its capsule.
 * - Text: `output_text.delta` / `refusal.delta`; the final values of
 *   `output_text.done`, `content_part.done` and `output_item.done` replace
 *   what the deltas added up to (a message's content parts joined).
 * - Reasoning: `reasoning_summary_text.delta` (summary parts of one item
 *   joined by {@link SUMMARY_SEPARATOR}, the separator also streamed as a
 *   delta) and `reasoning_text.delta`; the `.done` values are final. The
 *   item's `encrypted_content` from `output_item.done` becomes the part's
 *   `providerReasoning` (with the item id and its summary texts); the
 *   differing value `output_item.added` carries is ignored.
 * - Tool calls: `function_call` (`function_call_arguments.delta`, final
 *   `.done` / item `arguments`) and `custom_tool_call` (`custom_tool_call_input`,
 *   its raw `input` as the argument text): `call_id`, name, the provider's bytes.
 * - Terminal: `response.completed` / `response.incomplete` (status, reason,
 *   usage); items of its `response.output` that never streamed are added
 *   (after the streamed ones), streamed items missing their `.done` settled.
 * - Other item types and events are ignored.
 */
export class ResponsesStreamState {
  /** `completed` / `incomplete` once the terminal event arrived. */
  status: 'completed' | 'incomplete' | undefined;
  /** `response.incomplete_details.reason` of an incomplete response. */
  incompleteReason: string | undefined;
  /** `response.id` (a fallback request id). */
  responseId: string | undefined;
  private wireUsage: unknown;
  private readonly parts = new PartsAssembler();
  private readonly items = new Map<string, ItemState>();
  private readonly keyOfId = new Map<string, string>();

  constructor(
    private readonly origin: CapsuleOrigin,
    private readonly handlers: DeltaHandlers = {},
  ) {}

  /** PR4: only `response.completed` / `response.incomplete` end a Responses stream properly. */
  get complete(): boolean {
    return this.status !== undefined;
  }

  /** Usage of the terminal response, mapped; undefined when none. */
  get usage(): Usage | undefined {
    return mapResponsesUsage(this.wireUsage);
  }

  /** The assembled parts so far; a call without `call_id` is named `call_<key>`. */
  result(): AssembledParts {
    return this.parts.result();
  }

  /** Fold one parsed event (not `error` / `response.failed`). `type` is the payload's `type`. */
  handle(type: string, ev: Obj): void {
    switch (type) {
      case 'response.created':
      case 'response.in_progress':
        this.noteResponse(ev.response);
        return;
      case 'response.completed':
      case 'response.incomplete':
        this.terminal(type === 'response.completed' ? 'completed' : 'incomplete', ev.response);
        return;
      case 'response.output_item.added':
        if (isObject(ev.item)) this.itemAdded(ev, ev.item);
        return;
      case 'response.output_item.done':
        if (isObject(ev.item)) this.itemDone(this.keyFor(ev, ev.item.id), ev.item);
        return;
      case 'response.output_text.delta':
      case 'response.refusal.delta':
        this.textDelta(ev);
        return;
      case 'response.output_text.done':
        this.textFinal(ev, str(ev.text));
        return;
      case 'response.refusal.done':
        this.textFinal(ev, str(ev.refusal));
        return;
      case 'response.content_part.done':
        if (isObject(ev.part) && (ev.part.type === 'output_text' || ev.part.type === 'refusal')) {
          this.textFinal(ev, str(ev.part.text) ?? str(ev.part.refusal));
        }
        return;
      case 'response.reasoning_summary_text.delta':
        this.summaryDelta(ev);
        return;
      case 'response.reasoning_summary_text.done':
        this.summaryFinal(ev, str(ev.text));
        return;
      case 'response.reasoning_summary_part.done':
        if (isObject(ev.part)) this.summaryFinal(ev, str(ev.part.text));
        return;
      case 'response.reasoning_text.delta':
        if (nonEmpty(ev.delta)) this.reasoning(this.keyFor(ev), ev.delta);
        return;
      case 'response.function_call_arguments.delta':
      case 'response.custom_tool_call_input.delta':
        if (typeof ev.delta === 'string') this.parts.toolCall(this.keyFor(ev), { argsDelta: ev.delta });
        return;
      case 'response.function_call_arguments.done':
        if (typeof ev.arguments === 'string') this.parts.toolCall(this.keyFor(ev), { args: ev.arguments });
        return;
      case 'response.custom_tool_call_input.done':
        if (typeof ev.input === 'string') this.parts.toolCall(this.keyFor(ev), { args: ev.input });
        return;
      default:
        return;
    }
  }

  private noteResponse(r: unknown): void {
    if (isObject(r) && nonEmpty(r.id) && this.responseId === undefined) this.responseId = r.id;
  }

  /**
   * The block key of an event: `o<output_index>` when it has one (its
   * `item_id` / item id is remembered for it), else the key its item id was
   * seen under, else `i<item_id>`.
   */
  private keyFor(ev: Obj, itemId: unknown = ev.item_id): string {
    const id = nonEmpty(itemId) ? itemId : undefined;
    if (typeof ev.output_index === 'number' && Number.isInteger(ev.output_index)) {
      const key = `o${ev.output_index}`;
      if (id !== undefined && !this.keyOfId.has(id)) this.keyOfId.set(id, key);
      return key;
    }
    if (id !== undefined) {
      const known = this.keyOfId.get(id);
      if (known !== undefined) return known;
      this.keyOfId.set(id, `i${id}`);
      return `i${id}`;
    }
    return 'o0';
  }

  private item(key: string): ItemState {
    let s = this.items.get(key);
    if (s === undefined) {
      s = { contents: [], summaries: [], done: false };
      this.items.set(key, s);
    }
    return s;
  }

  private itemAdded(ev: Obj, item: Obj): void {
    const key = this.keyFor(ev, item.id);
    const s = this.item(key);
    if (nonEmpty(item.id)) s.id = item.id;
    if (item.type === 'function_call' || item.type === 'custom_tool_call') {
      const raw = item.type === 'function_call' ? item.arguments : item.input;
      this.parts.toolCall(key, {
        ...(nonEmpty(item.call_id) ? { callId: item.call_id } : {}),
        ...(nonEmpty(item.name) ? { name: item.name } : {}),
        ...(typeof raw === 'string' ? { argsDelta: raw } : {}),
      });
    }
  }

  /** A finished item (from `output_item.done` or the terminal response): its final values win. */
  private itemDone(key: string, item: Obj): void {
    const s = this.item(key);
    if (nonEmpty(item.id)) s.id = item.id;
    s.done = true;
    switch (item.type) {
      case 'message': {
        const texts = contentTexts(item);
        if (texts.length > 0) {
          s.contents = texts;
          this.parts.setText('text', key, texts.join(''));
        }
        return;
      }
      case 'reasoning': {
        const texts = summaryTexts(item);
        if (texts.length > 0) {
          s.summaries = texts;
          this.parts.setText('reasoning', key, joinSummaries(texts));
        }
        if (nonEmpty(item.encrypted_content)) {
          const capsule: ProviderReasoning = {
            provider: this.origin.provider,
            model: this.origin.model,
            surface: 'responses',
            ...(s.id !== undefined ? { itemId: s.id } : {}),
            encryptedContent: item.encrypted_content,
            summary: texts,
            producedAtMs: this.origin.now(),
          };
          this.parts.reasoningCapsule(key, capsule);
        }
        return;
      }
      case 'function_call':
      case 'custom_tool_call': {
        const raw = item.type === 'function_call' ? item.arguments : item.input;
        this.parts.toolCall(key, {
          ...(nonEmpty(item.call_id) ? { callId: item.call_id } : {}),
          ...(nonEmpty(item.name) ? { name: item.name } : {}),
          ...(typeof raw === 'string' ? { args: raw } : {}),
        });
        return;
      }
      default:
        return;
    }
  }

  private textDelta(ev: Obj): void {
    if (!nonEmpty(ev.delta)) return;
    const key = this.keyFor(ev);
    const s = this.item(key);
    const ci = index(ev.content_index);
    s.contents[ci] = (s.contents[ci] ?? '') + ev.delta;
    this.parts.text(ev.delta, key);
    this.handlers.onTextDelta?.(ev.delta);
  }

  private textFinal(ev: Obj, text: string | undefined): void {
    if (text === undefined) return;
    const key = this.keyFor(ev);
    const s = this.item(key);
    s.contents[index(ev.content_index)] = text;
    this.parts.setText('text', key, Array.from(s.contents, (t) => t ?? '').join(''));
  }

  private summaryDelta(ev: Obj): void {
    if (!nonEmpty(ev.delta)) return;
    const key = this.keyFor(ev);
    const s = this.item(key);
    const si = index(ev.summary_index);
    const current = s.summaries[si] ?? '';
    // A new summary part of an item that already shows text starts after a separator.
    if (current === '' && s.summaries.some((t, i) => i !== si && t !== '')) this.reasoning(key, SUMMARY_SEPARATOR);
    s.summaries[si] = current + ev.delta;
    this.reasoning(key, ev.delta);
  }

  private summaryFinal(ev: Obj, text: string | undefined): void {
    if (text === undefined) return;
    const key = this.keyFor(ev);
    const s = this.item(key);
    s.summaries[index(ev.summary_index)] = text;
    this.parts.setText('reasoning', key, joinSummaries(Array.from(s.summaries, (t) => t ?? '')));
  }

  private reasoning(key: string, delta: string): void {
    this.parts.reasoning(delta, key);
    this.handlers.onReasoningDelta?.(delta);
  }

  private terminal(status: 'completed' | 'incomplete', r: unknown): void {
    this.status = status;
    if (!isObject(r)) return;
    this.noteResponse(r);
    if (r.usage !== undefined && r.usage !== null) this.wireUsage = r.usage;
    if (isObject(r.incomplete_details) && nonEmpty(r.incomplete_details.reason)) {
      this.incompleteReason = r.incomplete_details.reason;
    }
    if (!Array.isArray(r.output)) return;
    r.output.forEach((item: unknown, i) => {
      if (!isObject(item)) return;
      const byId = nonEmpty(item.id) ? this.keyOfId.get(item.id) : undefined;
      let key = byId ?? `o${i}`;
      const seen = this.items.get(key);
      // Position i is taken by another item: this one never streamed.
      if (byId === undefined && seen?.id !== undefined && nonEmpty(item.id) && seen.id !== item.id) key = `i${item.id}`;
      if (this.items.get(key)?.done === true) return;
      if (nonEmpty(item.id) && !this.keyOfId.has(item.id)) this.keyOfId.set(item.id, key);
      this.itemDone(key, item);
    });
  }
}
