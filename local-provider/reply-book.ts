/**
 * Which scripted reply a model request gets, and how often each reply's
 * fault has fired: the bookkeeping of one local provider server, kept in a
 * file when `stateFile` is given (`reply-state.ts`) so a restarted server
 * goes on where the last one stopped.
 */
import { conversationPosition, firstUserText, positionKey } from './position.js';
import { freshReplyState, loadReplyState, saveReplyState, type ReplyState } from './reply-state.js';
import { flattenThreads, type Script, type ScriptFault } from './script.js';
import type { SurfaceCodec } from './surface.js';

/** The reply picked for a request: its index in the flattened replies (absent: none left), where, and of how many. */
export interface PickedReply {
  index?: number;
  /** ` in thread "…" at position …` (empty for `replyBy: "arrival"`), for log lines and errors. */
  at: string;
  /** How many replies the request's conversation has. */
  of: number;
}

/** What a reply's fault does to this request (`takeFault`). */
export type FaultTaken =
  | { kind: 'status' | 'context-limit'; use: number }
  | { kind: 'cut-end' | 'cut-destroy' | 'malformed' | 'stream-error'; use: number };

/** The reply bookkeeping of one server: positions held, cursors, fault uses, replies served. */
export class ReplyBook {
  private readonly state: ReplyState;
  private readonly ranges: { start: number; end: number; match?: string }[];

  /** @param stateFile keep the bookkeeping in this file (absent: in memory only). */
  constructor(
    private readonly script: Script,
    private readonly stateFile?: string,
  ) {
    this.ranges = flattenThreads(script).ranges;
    const fresh = freshReplyState(this.ranges.map((r) => r.start));
    this.state = stateFile ? loadReplyState(stateFile, fresh) : fresh;
  }

  /** Number of distinct replies served in full so far. */
  get servedCount(): number {
    return this.state.served.size;
  }

  /** How many times reply `index`'s fault has fired. */
  faultUses(index: number): number {
    return this.state.faultUses.get(index) ?? 0;
  }

  /**
   * The reply a request gets (see `ScriptSchema.replyBy` and `threads`): the
   * one its conversation position already holds, else the conversation's
   * next free reply (recorded), else none (`index` absent: script exhausted).
   */
  pick(codec: SurfaceCodec, body: Record<string, unknown>): PickedReply {
    const { script, state, ranges } = this;
    if (script.replyBy === 'arrival') {
      const next = state.cursors[0]!;
      return { index: next < script.replies.length ? next : undefined, at: '', of: script.replies.length };
    }
    const t = this.conversationOf(codec, body);
    const range = ranges[t]!;
    const key = positionKey(conversationPosition(codec.surface, body));
    const at = `${t > 0 ? ` in thread ${JSON.stringify(range.match)}` : ''} at position ${key}`;
    const of = range.end - range.start;
    const held = state.byPosition[t]!.get(key);
    if (held !== undefined) return { index: held, at, of };
    if (state.cursors[t]! >= range.end) return { at, of };
    const index = state.cursors[t]!;
    state.byPosition[t]!.set(key, index);
    state.cursors[t] = index + 1;
    this.remember();
    return { index, at, of };
  }

  /**
   * Fires reply `index`'s repeating fault (status / contextLimit / cutStream /
   * malformedChunk / streamError) while it has uses left; undefined when the
   * reply is to be served (no such fault, or its `times` are used up).
   */
  takeFault(index: number, fault: ScriptFault | undefined): FaultTaken | undefined {
    if (fault === undefined || fault.delayMs !== undefined) return undefined;
    const used = this.faultUses(index);
    if (used >= (fault.times ?? 1)) return undefined;
    this.state.faultUses.set(index, used + 1);
    this.remember();
    const use = used + 1;
    if (fault.status !== undefined) return { kind: 'status', use };
    if (fault.contextLimit === true) return { kind: 'context-limit', use };
    if (fault.cutStream === true) return { kind: fault.mode === 'destroy' ? 'cut-destroy' : 'cut-end', use };
    return { kind: fault.streamError === true ? 'stream-error' : 'malformed', use };
  }

  /** Records reply `index` as served in full (`arrival`: the cursor moves on). */
  markServed(index: number): void {
    this.state.served.add(index);
    if (this.script.replyBy === 'arrival') this.state.cursors[0]! += 1;
    this.remember();
  }

  /** The conversation a request belongs to: the first thread whose `match` its first user text holds, else 0. */
  private conversationOf(codec: SurfaceCodec, body: Record<string, unknown>): number {
    const first = this.ranges.length > 1 ? firstUserText(codec.surface, body) : '';
    return Math.max(
      0,
      this.ranges.findIndex((r, i) => i > 0 && r.match !== undefined && first.includes(r.match)),
    );
  }

  private remember(): void {
    if (this.stateFile) saveReplyState(this.stateFile, this.state);
  }
}
