/**
 * A scripted reply normalized into a surface-neutral turn (ordered items,
 * finish reason, usage) that each surface renderer turns into its own wire
 * events. Pure.
 */
import type { ScriptReply, ScriptUsage } from './script.js';

/** One ordered output item of a turn. */
export type TurnItem =
  | { kind: 'reasoning'; text: string; capsule?: string }
  | { kind: 'redacted_reasoning'; data: string }
  | { kind: 'text'; text: string }
  | {
      kind: 'tool_call';
      /** 0-based among the turn's tool calls. */
      call: number;
      id: string;
      name: string;
      /** Full argument text as sent. */
      args: string;
      /** The argument text cut in 2+ pieces (one empty piece for empty arguments). */
      pieces: string[];
    };

/** A reply ready to render. */
export interface ScriptedTurn {
  items: TurnItem[];
  /** Chat-vocabulary finish reason (or a raw string), `null` for none. */
  finish: string | null;
  /** Usage as scripted; `undefined` → estimate, `null` → none. */
  usage: ScriptUsage | null | undefined;
  interleaveToolCalls: boolean;
  /** False when the closing marker must be omitted. */
  done: boolean;
}

/**
 * Split a text into several deltas, word by word (whitespace kept with the
 * following word); a single word of ≥ 2 code points is cut in two. The pieces
 * always join back to exactly `text`. Empty text → no pieces.
 */
export function splitDeltas(text: string): string[] {
  if (text === '') return [];
  const words = text.match(/\s*\S+|\s+$/g) ?? [text];
  if (words.join('') !== text) return [text];
  if (words.length >= 2) return words;
  return splitPieces(text, 2);
}

/** Split a string into `n` (≤ its code-point length) non-empty pieces on code-point boundaries. */
export function splitPieces(s: string, n: number): string[] {
  const cps = Array.from(s);
  if (cps.length < 2 || n < 2) return [s];
  const k = Math.min(n, cps.length);
  const out: string[] = [];
  for (let i = 0; i < k; i++) {
    out.push(cps.slice(Math.floor((i * cps.length) / k), Math.floor(((i + 1) * cps.length) / k)).join(''));
  }
  return out;
}

/**
 * Normalize a (non-`chunks`) reply: `output` as given, else `reasoning`
 * (+ `reasoningCapsule`), `text`, then `toolCalls`; empty texts are dropped.
 * Tool call ids default to `call_<replyIndex>_<call>` (both 0-based);
 * arguments given as an object are sent as `JSON.stringify(object)`.
 */
export function toTurn(reply: ScriptReply, replyIndex: number): ScriptedTurn {
  const items: TurnItem[] = [];
  let calls = 0;
  const addCall = (tc: {
    name: string;
    arguments: string | Record<string, unknown>;
    id?: string | undefined;
  }): void => {
    const args = typeof tc.arguments === 'string' ? tc.arguments : JSON.stringify(tc.arguments);
    items.push({
      kind: 'tool_call',
      call: calls,
      id: tc.id ?? `call_${replyIndex}_${calls}`,
      name: tc.name,
      args,
      pieces: args === '' ? [''] : splitPieces(args, 3),
    });
    calls += 1;
  };
  const addReasoning = (text: string, capsule: string | undefined): void => {
    const item: TurnItem = { kind: 'reasoning', text };
    if (capsule !== undefined) item.capsule = capsule;
    if (text !== '' || capsule !== undefined) items.push(item);
  };
  if (reply.output !== undefined) {
    for (const o of reply.output) {
      if (o.reasoning !== undefined) addReasoning(o.reasoning, o.capsule);
      else if (o.redactedReasoning !== undefined) items.push({ kind: 'redacted_reasoning', data: o.redactedReasoning });
      else if (o.text !== undefined) {
        if (o.text !== '') items.push({ kind: 'text', text: o.text });
      } else if (o.toolCall !== undefined) addCall(o.toolCall);
    }
  } else {
    if (reply.reasoning !== undefined) addReasoning(reply.reasoning, reply.reasoningCapsule);
    if (reply.text !== undefined && reply.text !== '') items.push({ kind: 'text', text: reply.text });
    for (const tc of reply.toolCalls ?? []) addCall(tc);
  }
  return {
    items,
    finish: reply.finishReason === undefined ? (calls > 0 ? 'tool_calls' : 'stop') : reply.finishReason,
    usage: reply.usage,
    interleaveToolCalls: reply.interleaveToolCalls === true,
    done: reply.done !== false,
  };
}

/** Tokens estimated for `chars` characters (≈ 4 per token, at least 1). */
export function estimateTokens(chars: number): number {
  return Math.max(1, Math.ceil(chars / 4));
}

/**
 * The usage to send: the scripted one, or (when absent) an estimate with
 * input (from `promptChars`), output and total only; `null` → none.
 */
export function turnUsage(turn: ScriptedTurn, promptChars: number): ScriptUsage | null {
  // `promptChars` counts the offered tools' schemas too, as real providers' input tokens do.
  if (turn.usage === null) return null;
  if (turn.usage !== undefined) return turn.usage;
  const outChars = turn.items.reduce(
    (n, it) =>
      n +
      (it.kind === 'tool_call'
        ? it.name.length + it.args.length
        : it.kind === 'redacted_reasoning'
          ? 0
          : it.text.length),
    0,
  );
  const input = estimateTokens(promptChars);
  const output = estimateTokens(outChars);
  return { inputTokens: input, outputTokens: output, totalTokens: input + output };
}
