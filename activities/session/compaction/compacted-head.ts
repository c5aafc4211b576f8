/**
 * What a request carries in place of the conversation a valid summary
 * replaces (CP9, CP10): the `runtime.compaction` system segment — the
 * continuation template, the summary, and one factual sentence of how much
 * it replaces — then the session's first user message verbatim (the real
 * user anchor). Never a synthesized user message: the summary is runtime
 * context, the anchor is the person's own text as stored.
 */
import type { ModelMessage } from '../../../core/messages.js';
import type { ProjectionHotPath } from '../../projection/types.js';
import type { ValidSummary } from './current.js';
import { continuationTemplate } from './templates.js';

/** Segment id of the summary's system segment (CP9). */
export const COMPACTION_SEGMENT_ID = 'runtime.compaction';

/**
 * The factual sentence closing the segment. The scripted provider reads it
 * (local-provider/position.ts) to count the replaced steps and user turns,
 * so keep its wording in step with `SUMMARY_REPLACES` there.
 */
export function replacesSentence(steps: number, userMessages: number): string {
  return `This summary replaces ${steps} earlier model steps and ${userMessages} earlier user messages of this session.`;
}

/** The text of the `runtime.compaction` segment for `s`. */
export function compactionSegmentText(s: ValidSummary): string {
  return [
    continuationTemplate(),
    '',
    '<summary>',
    s.summary.trim(),
    '</summary>',
    '',
    replacesSentence(s.summarizedSteps, s.summarizedUserMessages),
  ].join('\n');
}

/**
 * The session's first user message as stored (the CP10 anchor), read from
 * its step's parts (one bounded read); null when the summary names none or
 * the part is gone.
 */
export async function anchorMessage(
  store: Pick<ProjectionHotPath, 'stepParts'>,
  sessionId: string,
  s: ValidSummary,
): Promise<ModelMessage | null> {
  if (!s.anchor) return null;
  const { turn, step, position } = s.anchor;
  const part = (await store.stepParts(sessionId, { turn, step })).find((p) => p.position === position);
  return part && part.kind === 'text' ? { role: 'user', text: part.text ?? '' } : null;
}

/**
 * The head of a compacted conversation: the `runtime.compaction` system
 * message (placed by the adapters with the other system segments, after
 * them), then the anchor user message when there is one.
 */
export async function compactedHead(
  store: Pick<ProjectionHotPath, 'stepParts'>,
  sessionId: string,
  s: ValidSummary,
): Promise<ModelMessage[]> {
  const anchor = await anchorMessage(store, sessionId, s);
  return [
    { role: 'system', segment: COMPACTION_SEGMENT_ID, text: compactionSegmentText(s) },
    ...(anchor ? [anchor] : []),
  ];
}
