/**
 * Old tool outputs stop riding along (issue 28 item 5): in a request, a
 * tool result older than the retained zone and longer than
 * {@link ELIDE_OVER_CHARS} is sent as a head and a tail around a marked gap
 * plus one reference line saying how to get it again. The stored rows are
 * unchanged (the projection keeps every output; only the request is
 * shorter), and a call keeps its — shortened — result, so the provider's
 * tool protocol still pairs. Its `[verification rcp_…]` receipt lines are
 * always kept (a Goal's evidence cites them).
 *
 * Which outputs are old is measured in estimated tokens from the START of
 * the conversation, and the cut advances in steps of half the retained
 * zone: as the conversation grows, the already-sent prefix changes only
 * when the cut moves one step on, so a provider's prompt cache keeps
 * hitting in between. The verbatim zone is therefore between
 * `retainedTokens` and 1.5 × `retainedTokens` at the end of the conversation.
 */
import type { ModelMessage } from '../../../core/messages.js';
import { fragment, receiptLines } from './project.js';
import { estimateTokens } from './tokens.js';

/** An old tool output longer than this (characters) is elided. */
export const ELIDE_OVER_CHARS = 2_000;
/** Characters of an elided output kept (head ⅔, tail ⅓). */
export const ELIDED_KEEP_CHARS = 1_200;

/** The reference line closing an elided output. */
export function elidedReference(tool: string, callId: string, chars: number): string {
  return `[output of ${tool} call ${callId} elided: ${chars} chars; to get it again, re-read the file or re-run a read-only command]`;
}

/**
 * `conversation` with its old long tool outputs elided (see the module
 * comment); `elided` counts them. `retainedTokens` ≤ 0 elides nothing.
 */
export function elideOldToolOutputs(
  conversation: readonly ModelMessage[],
  retainedTokens: number,
): { messages: ModelMessage[]; elided: number } {
  if (retainedTokens <= 0) return { messages: [...conversation], elided: 0 };
  const ends: number[] = [];
  let total = 0;
  for (const m of conversation) ends.push((total += estimateTokens(JSON.stringify(m))));
  const quantum = Math.max(1, Math.ceil(retainedTokens / 2));
  const cut = Math.floor(Math.max(0, total - retainedTokens) / quantum) * quantum;
  let elided = 0;
  const messages = conversation.map((m, i) => {
    if (m.role !== 'tool' || ends[i]! > cut || m.content.length <= ELIDE_OVER_CHARS) return m;
    elided++;
    const kept = fragment(m.content, ELIDED_KEEP_CHARS);
    // A receipt line (the evidence a Goal cites) survives even when it sat in the gap.
    const receipts = receiptLines(m.content).filter((r) => !kept.includes(r));
    const content = [kept, ...receipts, elidedReference(m.name, m.callId, m.content.length)].join('\n');
    return { ...m, content };
  });
  return { messages, elided };
}
