/**
 * The prompt receipt of a model request (SE9, SE28; issue 32): the
 * `session.prompt` event — each system segment's id, source, size and
 * SHA-256, the digest of the whole list and the tools offered — plus each
 * segment's text as a `prompt.segment` event once per digest, so every
 * request's system prompt is reconstructible from stored events. Written in
 * the batch that precedes the request (model-step.ts).
 */
import { createHash } from 'node:crypto';
import { EV } from '../../../core/events.js';
import type { PromptSegment, SegmentReceipt } from '../../../core/prompt/segments.js';
import type { ProjectionWrite } from '../../projection/types.js';

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex');

/** Each segment's receipt line, in order. */
export function segmentReceipts(segments: readonly PromptSegment[]): SegmentReceipt[] {
  return segments.map((s) => ({ id: s.segment, source: s.source, chars: s.text.length, sha256: sha256(s.text) }));
}

/** Sessions whose stored segment digests one worker remembers (least recently used out first). */
const REMEMBERED_SESSIONS = 256;

/** Writes prompt receipts, remembering per session which segment texts this worker already stored. */
export class PromptReceipts {
  private readonly stored = new Map<string, Set<string>>();

  /**
   * The writes of one request's receipt: `prompt.segment` for each text this
   * worker has not stored for the session yet (ids are per digest, so a
   * repeat after a restart is an idempotent no-op), then `session.prompt`.
   */
  writes(
    at: { sessionId: string; turn: number; step: number; attempt: number; atMs: number },
    segments: readonly PromptSegment[],
    tools: readonly string[],
  ): ProjectionWrite[] {
    const { sessionId, turn, step, attempt, atMs } = at;
    const receipts = segmentReceipts(segments);
    const known = this.remembered(sessionId);
    const writes: ProjectionWrite[] = [];
    segments.forEach((s, i) => {
      const digest = receipts[i]!.sha256;
      const key = `${s.segment}:${digest}`;
      if (known.has(key)) return;
      known.add(key);
      writes.push({
        kind: 'event',
        event: {
          id: `segment:${key}`,
          sessionId,
          type: EV.promptSegment,
          data: { segment: s.segment, sha256: digest, text: s.text },
          atMs,
        },
      });
    });
    writes.push({
      kind: 'event',
      event: {
        id: `step_${turn}_${step}:prompt:${attempt}`,
        sessionId,
        type: EV.promptAssembled,
        data: {
          turn,
          step,
          attempt,
          sha256: sha256(receipts.map((r) => `${r.id}:${r.sha256}`).join('\n')),
          segments: receipts,
          tools: [...tools],
        },
        atMs,
      },
    });
    return writes;
  }

  /** Forgets a session whose batch failed, so its texts are written again next time. */
  forget(sessionId: string): void {
    this.stored.delete(sessionId);
  }

  private remembered(sessionId: string): Set<string> {
    let set = this.stored.get(sessionId);
    if (set) this.stored.delete(sessionId);
    else set = new Set();
    this.stored.set(sessionId, set);
    if (this.stored.size > REMEMBERED_SESSIONS) this.stored.delete(this.stored.keys().next().value!);
    return set;
  }
}
