/**
 * The conversation a model step sends, assembled incrementally (issue 13
 * item 3): a worker keeps, per session, the messages of the steps that can
 * no longer change and reads from the projection only the steps after them,
 * so a step's reads do not grow with the session.
 *
 * A step is closed — its messages final — when it is before the step being
 * assembled and every tool call it holds is completed: parts are only ever
 * appended to a step while it runs, a completed call's output never changes
 * (a late result or a settlement that meets it keeps it), and the only
 * deletions (a retried step's rollback, PR4; an interrupted step's, TD10)
 * remove the step that was running. The cached prefix is checked on every
 * use by a cheap watermark — the number of parts stored through its last
 * step — and dropped when it differs (a projection that changed under the
 * worker, e.g. a new database). Bounded: at most `maxSessions` sessions and
 * `maxChars` characters of message text in all, least recently used first out.
 *
 * Compaction (CP9, CP10, CP13): when the session has a valid summary, the
 * conversation is its head (`compaction/compacted-head.ts`: the
 * `runtime.compaction` system segment and the session's first user
 * message, verbatim) followed by the steps after the summary's boundary
 * only — read with `transcriptAfter(boundary)`, so a compacted session's
 * reads stay bounded. A cached prefix belongs to one summary: a newer
 * summary drops it.
 */
import type { ModelMessage } from '../../core/messages.js';
import type { ProjectionHotPath, ProjectionStore, StepKey, TranscriptRows } from '../projection/types.js';
import { compactedHead } from './compaction/compacted-head.js';
import { currentSummary, type ValidSummary } from './compaction/current.js';
import { stepsToMessages } from './prompt.js';

/** The reads the cache makes: the hot path, and the newest summary event. */
export type TranscriptStore = ProjectionHotPath & Pick<ProjectionStore, 'lastEvent'>;

/** What {@link TranscriptCache.before} returns. */
export interface EarlierConversation {
  messages: ModelMessage[];
  rowsAtCurrent: boolean;
  /** The valid summary the conversation starts from (CP13), or null when the session was never compacted. */
  summary: ValidSummary | null;
}

/** A session's closed prefix. */
interface Entry {
  /** The last closed step. */
  through: StepKey;
  /** Parts stored in the steps up to and including `through` when cached (the watermark). */
  parts: number;
  messages: ModelMessage[];
  chars: number;
  /** The summary the prefix starts from (its compaction id), null for a session never compacted. */
  epoch: string | null;
}

/** Default bounds of one worker's cache. */
export const TRANSCRIPT_CACHE_LIMITS = { maxSessions: 256, maxChars: 64 * 2 ** 20 } as const;

const before = (a: StepKey, b: StepKey) => a.turn < b.turn || (a.turn === b.turn && a.step < b.step);

/** Per-worker cache of closed transcript prefixes (see the module comment). */
export class TranscriptCache {
  private readonly entries = new Map<string, Entry>();
  private chars = 0;

  constructor(
    private readonly store: TranscriptStore,
    private readonly limits: { maxSessions: number; maxChars: number } = TRANSCRIPT_CACHE_LIMITS,
  ) {}

  /**
   * The conversation of every step of `sessionId` before `current`, without
   * the request's own system segments: with a valid summary, its head
   * (the `runtime.compaction` segment and the anchor user message) and the
   * steps after its boundary; else every step. The cached closed prefix is
   * used when its watermark and summary still hold; the steps after it are
   * read from the projection, and steps newly closed join the cache.
   * `rowsAtCurrent` is true when the projection already holds rows of
   * `current` itself (a step written before this attempt: the caller rolls
   * them back).
   */
  async before(sessionId: string, current: StepKey): Promise<EarlierConversation> {
    const summary = await currentSummary(this.store, sessionId);
    const epoch = summary?.compactionId ?? null;
    let entry = this.entries.get(sessionId);
    if (entry && (entry.epoch !== epoch || (await this.store.partsThrough(sessionId, entry.through)) !== entry.parts)) {
      this.drop(sessionId);
      entry = undefined;
    }
    const rows = await this.store.transcriptAfter(sessionId, entry?.through ?? summary?.boundary ?? null);
    const rowsAtCurrent =
      rows.parts.some((p) => !before(p, current)) || rows.toolCalls.some((c) => !before(c, current));
    const earlier = only(rows, (k) => before(k, current));
    const closedThrough = lastClosed(earlier);
    const closed = closedThrough ? only(earlier, (k) => !before(closedThrough, k)) : undefined;
    const open = stepsToMessages(closedThrough ? only(earlier, (k) => before(closedThrough, k)) : earlier);
    const head = entry || !summary ? [] : await compactedHead(this.store, sessionId, summary);
    let prefix = entry?.messages ?? head;
    if (closed && closedThrough) {
      // The watermark counts parts from the session's start: after a boundary, those before it too.
      const base = entry?.parts ?? (summary ? await this.store.partsThrough(sessionId, summary.boundary) : 0);
      prefix = [...prefix, ...stepsToMessages(closed)];
      this.keep(sessionId, {
        through: closedThrough,
        parts: base + closed.parts.length,
        messages: prefix,
        chars: (entry?.chars ?? headChars(head)) + textChars(closed),
        epoch,
      });
    } else if (entry) this.touch(sessionId, entry);
    return { messages: [...prefix, ...open], rowsAtCurrent, summary };
  }

  /** Sessions cached now. */
  get size(): number {
    return this.entries.size;
  }

  private keep(sessionId: string, entry: Entry): void {
    this.drop(sessionId);
    if (entry.chars > this.limits.maxChars) return; // one session alone over the bound: assembled every step
    this.entries.set(sessionId, entry);
    this.chars += entry.chars;
    for (const [id] of this.entries) {
      if (this.entries.size <= this.limits.maxSessions && this.chars <= this.limits.maxChars) break;
      this.drop(id);
    }
  }

  private touch(sessionId: string, entry: Entry): void {
    this.entries.delete(sessionId);
    this.entries.set(sessionId, entry);
  }

  private drop(sessionId: string): void {
    const e = this.entries.get(sessionId);
    if (!e) return;
    this.entries.delete(sessionId);
    this.chars -= e.chars;
  }
}

/** The rows of the steps `keep` accepts. */
function only(rows: TranscriptRows, keep: (k: StepKey) => boolean): TranscriptRows {
  return {
    messages: rows.messages.filter(keep),
    parts: rows.parts.filter(keep),
    toolCalls: rows.toolCalls.filter(keep),
  };
}

/** The last step of `rows` such that it and every step before it hold only completed calls; undefined when none. */
function lastClosed(rows: TranscriptRows): StepKey | undefined {
  const steps = new Map<string, StepKey>();
  for (const p of rows.parts) steps.set(`${p.turn}/${p.step}`, { turn: p.turn, step: p.step });
  const openAt = rows.toolCalls.filter((c) => c.status !== 'completed');
  const firstOpen = openAt.reduce<StepKey | undefined>((a, c) => (!a || before(c, a) ? c : a), undefined);
  // A call part whose row is missing leaves its step open too (the placeholder text is not final).
  const rowIds = new Set(rows.toolCalls.map((c) => c.id));
  const orphan = rows.parts.filter((p) => p.kind === 'tool_call' && p.toolCallId && !rowIds.has(p.toolCallId));
  const firstOrphan = orphan.reduce<StepKey | undefined>((a, p) => (!a || before(p, a) ? p : a), undefined);
  const limit = [firstOpen, firstOrphan].reduce<StepKey | undefined>(
    (a, k) => (k && (!a || before(k, a)) ? k : a),
    undefined,
  );
  let last: StepKey | undefined;
  for (const k of steps.values()) {
    if (limit && !before(k, limit)) continue;
    if (!last || before(last, k)) last = k;
  }
  return last;
}

/** Characters of text the rows carry (what a cached prefix costs in memory, roughly). */
function textChars(rows: TranscriptRows): number {
  let n = 0;
  for (const p of rows.parts) n += (p.text?.length ?? 0) + 64;
  for (const c of rows.toolCalls) n += c.argsJson.length + (c.output?.length ?? 0) + 64;
  return n;
}

/** Characters of a compacted conversation's head. */
function headChars(head: readonly ModelMessage[]): number {
  return head.reduce((n, m) => n + ('text' in m ? m.text.length : 0) + 64, 0);
}
