/**
 * Receipt placeholders in provider scripts. A scripted model that cites a
 * shell call's verification receipt as evidence (a Goal's `goal_update`)
 * must write the receipt id, which is derived from the session id, the
 * call's tool-call row id and its call id (activities/tools/shell/receipt.ts
 * `receiptId`) — unknown when the script is written, and the row id not
 * even known when the session starts. The script writes
 * `{{receipt:<callId>}}` instead, and the local provider fills it in **when
 * it serves the reply**, from the request it answers: the conversation sent
 * with it holds the call's result, whose `[verification rcp_…]` line is the
 * id the row got. The newest result of that call id counts (a provider may
 * reuse call ids across responses; the newest is the one the model just
 * saw). Whoever starts a session checks the placeholders first
 * ({@link checkReceiptPlaceholders}), so a typo is refused before anything runs.
 */
import type { WireSurface } from '../core/messages.js';
import { flattenThreads, scriptInvalid, type Script, type ScriptIssue } from './script.js';

/**
 * `{{receipt:<callId>}}`: replaced by the receipt id of the newest result of
 * that call id in the conversation; `{{receipt:<callId>@<n>}}`: of its n-th
 * result (1-based, oldest first) — a provider may reuse a call id in later
 * responses, and a script may cite an earlier one.
 */
export const RECEIPT_PLACEHOLDER = /\{\{receipt:([^{}\s@]+)(?:@(\d+))?\}\}/g;

/** The receipt line of a shell result (activities/tools/shell/render.ts). */
const RECEIPT_LINE = /\[verification (rcp_[0-9a-f]{16})\]/;

/** The call ids a script gives its tool calls: the explicit `id`, else `call_<reply>_<call>` (both 0-based, replies of the top level then of each thread). */
export function scriptCallIds(script: Script): Set<string> {
  const ids = new Set<string>();
  // Threads are served from one flat list (the top level first): default ids number the replies of that list.
  flattenThreads(script).replies.forEach((reply, r) => {
    const calls = [
      ...(reply.toolCalls ?? []),
      ...(reply.output ?? []).flatMap((item) => (item.toolCall ? [item.toolCall] : [])),
    ];
    calls.forEach((call, c) => ids.add(call.id ?? `call_${r}_${c}`));
  });
  return ids;
}

/** Replaces the placeholders in every string of `value` (objects and arrays walked) by `replace(callId, nth)`. */
function fill(value: unknown, replace: (callId: string, nth: number | null) => string): unknown {
  if (typeof value === 'string')
    return value.replace(RECEIPT_PLACEHOLDER, (_m, callId: string, nth: string | undefined) =>
      replace(callId, nth === undefined ? null : Number(nth)),
    );
  if (Array.isArray(value)) return value.map((v) => fill(v, replace));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, replace)]));
  }
  return value;
}

/**
 * Checks the `{{receipt:<callId>}}` placeholders of `script` (in any string
 * of its replies and threads): each must name one of the script's tool
 * calls. Returns `script` unchanged — the local provider fills the
 * placeholders when it serves each reply ({@link fillReceiptsFromRequest}).
 * @throws ZunoError `script_invalid` naming each placeholder whose call id is
 *   not one of the script's tool calls (a typo would cite a receipt that never exists).
 */
export function checkReceiptPlaceholders(script: Script, source = '<inline script>'): Script {
  const known = scriptCallIds(script);
  const issues: ScriptIssue[] = [];
  const check = (replies: Script['replies'], at: string) =>
    replies.forEach((reply, r) =>
      fill(reply, (callId) => {
        if (!known.has(callId))
          issues.push({ path: `${at}[${r}]`, message: `{{receipt:${callId}}} names no tool call of the script` });
        return '';
      }),
    );
  check(script.replies, 'replies');
  (script.threads ?? []).forEach((t, i) => check(t.replies, `threads[${i}].replies`));
  if (issues.length > 0) throw scriptInvalid(source, 'unknown call in a receipt placeholder at', issues);
  return script;
}

const list = (v: unknown): Array<Record<string, unknown>> =>
  Array.isArray(v) ? v.filter((x): x is Record<string, unknown> => typeof x === 'object' && x !== null) : [];

/** The text of a result's content: a string, or the text of its blocks. */
function text(c: unknown): string {
  if (typeof c === 'string') return c;
  return list(c)
    .map((b) => (typeof b.text === 'string' ? b.text : ''))
    .join('');
}

/**
 * The tool results a request body carries, in conversation order, as
 * `[callId, text]`: Chat `tool` messages (`tool_call_id`), Responses
 * `function_call_output` items (`call_id`), Anthropic `tool_result` blocks
 * (`tool_use_id`). Malformed entries are skipped. Pure.
 */
export function toolResultsOf(surface: WireSurface, body: Record<string, unknown>): [string, string][] {
  const out: [string, string][] = [];
  if (surface === 'chat-completions') {
    for (const m of list(body.messages))
      if (m.role === 'tool' && typeof m.tool_call_id === 'string') out.push([m.tool_call_id, text(m.content)]);
  } else if (surface === 'responses') {
    for (const i of list(body.input))
      if (i.type === 'function_call_output' && typeof i.call_id === 'string') out.push([i.call_id, text(i.output)]);
  } else {
    for (const m of list(body.messages))
      for (const b of list(m.content))
        if (b.type === 'tool_result' && typeof b.tool_use_id === 'string') out.push([b.tool_use_id, text(b.content)]);
  }
  return out;
}

/**
 * Fills the `{{receipt:<callId>}}` placeholders of one scripted reply from
 * the request it answers (see the module comment): each becomes the
 * `rcp_…` id on the `[verification rcp_…]` line of the newest (or, with
 * `@<n>`, the n-th) result of that call in the request's conversation. A reply without placeholders is
 * returned as it is. Pure.
 * @returns `{ reply }` filled, or `{ missing }`: the call ids with no
 *   result carrying a receipt in the conversation (the reply cites a call the
 *   model has not seen answered — a script error).
 */
export function fillReceiptsFromRequest<T>(
  reply: T,
  surface: WireSurface,
  body: Record<string, unknown>,
): { reply: T } | { missing: string[] } {
  if (!JSON.stringify(reply).includes('{{receipt:')) return { reply };
  const receipts = new Map<string, string[]>();
  for (const [callId, result] of toolResultsOf(surface, body)) {
    const id = RECEIPT_LINE.exec(result)?.[1];
    if (id) receipts.set(callId, [...(receipts.get(callId) ?? []), id]);
  }
  const missing = new Set<string>();
  const filled = fill(reply, (callId, nth) => {
    const all = receipts.get(callId) ?? [];
    const id = nth === null ? all.at(-1) : all[nth - 1];
    if (id === undefined) missing.add(nth === null ? callId : `${callId}@${nth}`);
    return id ?? '';
  }) as T;
  return missing.size > 0 ? { missing: [...missing] } : { reply: filled };
}
