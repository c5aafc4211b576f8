/**
 * Receipt placeholders in provider scripts. A scripted model that cites a
 * shell call's verification receipt as evidence (a Goal's `goal_update`)
 * must write the receipt id, which is derived from the session id and the
 * call id (activities/tools/shell/receipt.ts `receiptId`) — unknown when the
 * script is written. The script writes `{{receipt:<callId>}}` instead, and
 * whoever starts the session fills it in once the session id is chosen,
 * before the local provider serves the script.
 */
import { receiptId } from '../../activities/tools/shell/receipt.js';
import { scriptInvalid, type Script, type ScriptIssue } from './script.js';

/** `{{receipt:<callId>}}`: replaced by the receipt id of that call in the session. */
export const RECEIPT_PLACEHOLDER = /\{\{receipt:([^{}\s]+)\}\}/g;

/** The call ids a script gives its tool calls: the explicit `id`, else `call_<reply>_<call>` (both 0-based). */
export function scriptCallIds(script: Script): Set<string> {
  const ids = new Set<string>();
  script.replies.forEach((reply, r) => {
    const calls = [
      ...(reply.toolCalls ?? []),
      ...(reply.output ?? []).flatMap((item) => (item.toolCall ? [item.toolCall] : [])),
    ];
    calls.forEach((call, c) => ids.add(call.id ?? `call_${r}_${c}`));
  });
  return ids;
}

/** Replaces the placeholders in every string of `value` (objects and arrays walked) by `replace(callId)`. */
function fill(value: unknown, replace: (callId: string) => string): unknown {
  if (typeof value === 'string') return value.replace(RECEIPT_PLACEHOLDER, (_m, callId: string) => replace(callId));
  if (Array.isArray(value)) return value.map((v) => fill(v, replace));
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, fill(v, replace)]));
  }
  return value;
}

/**
 * Returns a copy of `script` whose `{{receipt:<callId>}}` placeholders (in
 * any string of its replies: tool-call arguments, texts) are replaced by
 * `receiptId(sessionId, callId)` — the id the shell tool will print as
 * `[verification rcp_…]` for that call in session `sessionId`. The script
 * itself is not changed.
 * @throws ZunoError `script_invalid` naming each placeholder whose call id is
 *   not one of the script's tool calls (a typo would cite a receipt that never exists).
 */
export function fillReceiptPlaceholders(script: Script, sessionId: string, source = '<inline script>'): Script {
  const known = scriptCallIds(script);
  const issues: ScriptIssue[] = [];
  const replies = script.replies.map(
    (reply, r) =>
      fill(reply, (callId) => {
        if (!known.has(callId))
          issues.push({ path: `replies[${r}]`, message: `{{receipt:${callId}}} names no tool call of the script` });
        return receiptId(sessionId, callId);
      }) as Script['replies'][number],
  );
  if (issues.length > 0) throw scriptInvalid(source, 'unknown call in a receipt placeholder at', issues);
  return { ...script, replies };
}
