/**
 * Anthropic Messages stream assembly (pure, no I/O): folds parsed stream
 * events (or a whole non-streaming `message`) into ordered parts (PR9) with
 * reasoning capsules (PR8), the stop reason and usage (PR11). The HTTP side
 * lives in `sse-transport.ts`; the adapter is `anthropic-messages.ts`.
 */
import type { FinishReason, ProviderReasoning, Usage } from '../../core/messages.js';
import { normalizeFinishReason } from './finish-reason.js';
import { PartsAssembler } from './parts-assembler.js';
import { AnthropicUsage } from './anthropic-usage.js';
import type { DeltaHandlers, ModelResponse } from './types.js';

/** Who a reasoning capsule belongs to (PR8), and the clock stamping it. */
export interface CapsuleOrigin {
  /** Configured provider id. */
  provider: string;
  /** The model the request named. */
  model: string;
  /** ms since the epoch; default `Date.now`. */
  now?: () => number;
}

/** A stop that is a refusal with no output (PR3: typed terminal refusal). */
export interface EmptyRefusal {
  /** Human reason (category and explanation from `stop_details` when sent). */
  reason: string;
  /** The raw stop reason, used as the diagnostic code. */
  code: string;
}

type Block =
  | { kind: 'text'; key: string }
  | { kind: 'thinking'; key: string; signature: string }
  | { kind: 'redacted'; key: string }
  | { kind: 'tool_use'; key: string; input: unknown; sawArgs: boolean }
  /** Server-side tool use / results, model fallback markers, unknown types: not output of ours. */
  | { kind: 'skipped'; key: string };

const isObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const str = (v: unknown): string | undefined => (typeof v === 'string' ? v : undefined);
const nonEmpty = (v: unknown): v is string => typeof v === 'string' && v !== '';

/**
 * State of one Messages response.
 *
 * - Blocks by `index` (`content_block_start` … `content_block_stop`), each
 *   its own part at the place it started (PR9): `text` (`text_delta`) → a
 *   text part; `thinking` (`thinking_delta`, `signature_delta`) → a
 *   reasoning part whose capsule carries the signature (deltas concatenated);
 *   `redacted_thinking` → an empty-text reasoning part whose capsule carries
 *   `redactedData`; `tool_use` → a tool call whose `argsJson` is the
 *   `input_json_delta.partial_json` pieces concatenated byte-for-byte, or —
 *   when no non-empty piece came (a tool without arguments, a non-streaming
 *   message) — `JSON.stringify` of the block's `input` (`{}` if none).
 * - Capsules: `{provider, model, surface:'anthropic-messages', signature |
 *   redactedData, producedAtMs}`; `model` is the requested model, or after
 *   a `fallback` block the model it names in `to.model` (the one that
 *   signed what follows), so replay never hands a signature to a model that
 *   did not produce it.
 * - Skipped (not parts): `server_tool_use` and server tool results (run by
 *   the provider, not by Zuno), `fallback`, unknown block types and their deltas.
 * - `message_start`: message id, input usage; `message_delta`: stop reason,
 *   `stop_details`, usage (see {@link AnthropicUsage}); `message_stop`: the
 *   terminal marker (PR4). `ping` and unknown events are ignored; `error`
 *   events are the adapter's business.
 */
export class AnthropicStreamState {
  /** `message.id` from `message_start` (a fallback request id). */
  messageId: string | undefined;
  /** Raw `stop_reason` once seen. */
  stopRaw: string | undefined;
  /** `message_stop` arrived (PR4 terminal marker). */
  sawMessageStop = false;
  private stopDetails: Record<string, unknown> | undefined;
  private readonly usageAcc = new AnthropicUsage();
  private readonly parts = new PartsAssembler();
  private readonly byIndex = new Map<number, Block>();
  private readonly blocks: Block[] = [];
  private capsuleModel: string;
  private readonly now: () => number;

  constructor(
    private readonly origin: CapsuleOrigin,
    private readonly handlers: DeltaHandlers = {},
  ) {
    this.capsuleModel = origin.model;
    this.now = origin.now ?? Date.now;
  }

  /** PR4: only `message_stop` ends a Messages stream properly. */
  get complete(): boolean {
    return this.sawMessageStop;
  }

  /** Normalized usage so far; undefined when none was reported. */
  get usage(): Usage | undefined {
    return this.usageAcc.usage;
  }

  /** Fold one parsed stream event (not `error`, which the adapter types). */
  handle(ev: Record<string, unknown>): void {
    switch (ev.type) {
      case 'message_start':
        if (isObject(ev.message)) this.messageHead(ev.message, false);
        break;
      case 'content_block_start':
        if (typeof ev.index === 'number' && isObject(ev.content_block)) this.start(ev.index, ev.content_block);
        break;
      case 'content_block_delta':
        if (typeof ev.index === 'number' && isObject(ev.delta)) this.delta(ev.index, ev.delta);
        break;
      case 'message_delta':
        if (isObject(ev.delta)) this.stop(ev.delta.stop_reason, ev.delta.stop_details);
        this.usageAcc.absorb(ev.usage, true);
        break;
      case 'message_stop':
        this.sawMessageStop = true;
        break;
      default:
        break; // ping, content_block_stop, unknown events
    }
  }

  /**
   * Fold a whole non-streaming `message` object (its `content` blocks in
   * order, final usage and stop reason) as if it had been streamed; marks
   * the response complete.
   */
  foldMessage(message: Record<string, unknown>): void {
    this.messageHead(message, true);
    if (Array.isArray(message.content)) {
      (message.content as unknown[]).forEach((b, i) => {
        if (isObject(b)) this.start(i, b);
      });
    }
    this.stop(message.stop_reason, message.stop_details);
    this.sawMessageStop = true;
  }

  /** The finish reason: the normalized stop reason, else `tool_calls` when calls were made, else `stop`. */
  finishReason(): FinishReason {
    if (this.stopRaw !== undefined) return normalizeFinishReason(this.stopRaw);
    return this.parts.toolCallCount > 0 ? 'tool_calls' : 'stop';
  }

  /** When the answer is a refusal (`content_filter`) with no text and no tool call: why; else undefined. */
  emptyRefusal(): EmptyRefusal | undefined {
    if (this.finishReason() !== 'content_filter') return undefined;
    const { text, toolCalls } = this.parts.result();
    if (text !== '' || toolCalls.length > 0) return undefined;
    const d = this.stopDetails ?? {};
    const category = nonEmpty(d.category) ? ` (category ${d.category})` : '';
    const explanation = nonEmpty(d.explanation) ? `: ${d.explanation}` : '';
    return {
      reason: `the provider refused to answer (stop_reason ${this.stopRaw ?? 'refusal'}${category}, no output)${explanation}`,
      code: this.stopRaw ?? 'refusal',
    };
  }

  /** The assembled response; `requestId` = `headerRequestId` ?? the message id. */
  response(headerRequestId?: string): ModelResponse {
    for (const b of this.blocks) {
      if (b.kind === 'tool_use' && !b.sawArgs) {
        this.parts.toolCall(b.key, { args: JSON.stringify(isObject(b.input) ? b.input : {}) });
      }
    }
    const { parts, text, reasoning, toolCalls } = this.parts.result((key) => `toolu_zuno_${key}`);
    const out: ModelResponse = { parts, text, reasoning, toolCalls, finishReason: this.finishReason() };
    const usage = this.usage;
    if (usage !== undefined) out.usage = usage;
    const requestId = headerRequestId ?? this.messageId;
    if (requestId !== undefined) out.requestId = requestId;
    return out;
  }

  private messageHead(m: Record<string, unknown>, final: boolean): void {
    if (this.messageId === undefined && nonEmpty(m.id)) this.messageId = m.id;
    this.usageAcc.absorb(m.usage, final);
    if (final) return;
    this.stop(m.stop_reason, m.stop_details);
  }

  private stop(reason: unknown, details: unknown): void {
    if (nonEmpty(reason)) this.stopRaw = reason;
    if (isObject(details)) this.stopDetails = details;
  }

  private start(index: number, cb: Record<string, unknown>): void {
    const key = `b${this.blocks.length}`;
    let block: Block;
    switch (cb.type) {
      case 'text':
        block = { kind: 'text', key };
        this.text(block, str(cb.text) ?? '');
        break;
      case 'thinking':
        block = { kind: 'thinking', key, signature: '' };
        this.thinking(block, str(cb.thinking) ?? '');
        this.signature(block, str(cb.signature) ?? '');
        break;
      case 'redacted_thinking':
        block = { kind: 'redacted', key };
        if (nonEmpty(cb.data)) this.parts.reasoningCapsule(key, this.capsule({ redactedData: cb.data }));
        break;
      case 'tool_use': {
        block = { kind: 'tool_use', key, input: cb.input, sawArgs: false };
        const patch: { callId?: string; name?: string } = {};
        if (nonEmpty(cb.id)) patch.callId = cb.id;
        if (nonEmpty(cb.name)) patch.name = cb.name;
        this.parts.toolCall(key, patch);
        break;
      }
      case 'fallback': {
        block = { kind: 'skipped', key };
        const to = isObject(cb.to) ? cb.to.model : undefined;
        if (nonEmpty(to)) this.capsuleModel = to;
        break;
      }
      default:
        block = { kind: 'skipped', key };
    }
    this.blocks.push(block);
    this.byIndex.set(index, block);
  }

  private delta(index: number, d: Record<string, unknown>): void {
    let block = this.byIndex.get(index);
    if (block === undefined) {
      // A delta without its content_block_start: text and thinking are still placed; anything else is dropped.
      if (d.type === 'text_delta') this.start(index, { type: 'text' });
      else if (d.type === 'thinking_delta' || d.type === 'signature_delta') this.start(index, { type: 'thinking' });
      else return;
      block = this.byIndex.get(index) as Block;
    }
    if (d.type === 'text_delta' && block.kind === 'text') this.text(block, str(d.text) ?? '');
    else if (d.type === 'thinking_delta' && block.kind === 'thinking') this.thinking(block, str(d.thinking) ?? '');
    else if (d.type === 'signature_delta' && block.kind === 'thinking') this.signature(block, str(d.signature) ?? '');
    else if (d.type === 'input_json_delta' && block.kind === 'tool_use' && nonEmpty(d.partial_json)) {
      block.sawArgs = true;
      this.parts.toolCall(block.key, { argsDelta: d.partial_json });
    }
  }

  private text(block: Block, t: string): void {
    if (t === '') return;
    this.parts.text(t, block.key);
    this.handlers.onTextDelta?.(t);
  }

  private thinking(block: Block, t: string): void {
    if (t === '') return;
    this.parts.reasoning(t, block.key);
    this.handlers.onReasoningDelta?.(t);
  }

  private signature(block: Extract<Block, { kind: 'thinking' }>, piece: string): void {
    if (piece === '') return;
    block.signature += piece;
    this.parts.reasoningCapsule(block.key, this.capsule({ signature: block.signature }));
  }

  private capsule(payload: { signature: string } | { redactedData: string }): ProviderReasoning {
    return {
      provider: this.origin.provider,
      model: this.capsuleModel,
      surface: 'anthropic-messages',
      ...payload,
      producedAtMs: this.now(),
    };
  }
}
