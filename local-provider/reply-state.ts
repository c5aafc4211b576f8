/**
 * What a local provider has handed out, kept in a file so a restarted server
 * (the host worker service after a crash or an upgrade) goes on where the
 * last one stopped: which reply each conversation position holds, the next
 * free reply of each conversation, how often each fault fired and which
 * replies were served in full. Without it a fresh server hands a session
 * that is half-way through its script reply 1 again.
 */
import { readFileSync, renameSync, writeFileSync } from 'node:fs';

/** The mutable reply bookkeeping of one server (see `reply-book.ts` `ReplyBook`). */
export interface ReplyState {
  /** Per conversation (0: top level, i+1: `threads[i]`): position key → reply index. */
  byPosition: Map<string, number>[];
  /** Per conversation: the next reply no position holds yet (`arrival`: the next reply not served in full). */
  cursors: number[];
  /** Reply index → how many times its fault fired. */
  faultUses: Map<number, number>;
  /** Reply indexes served in full. */
  served: Set<number>;
}

/** The stored form (JSON) of a {@link ReplyState}. */
interface StoredReplyState {
  byPosition: [string, number][][];
  cursors: number[];
  faultUses: [number, number][];
  served: number[];
}

/** A fresh state for conversations starting at `starts` (each conversation's first reply index). */
export function freshReplyState(starts: number[]): ReplyState {
  return {
    byPosition: starts.map(() => new Map<string, number>()),
    cursors: [...starts],
    faultUses: new Map(),
    served: new Set(),
  };
}

/**
 * The state stored in `file` when it fits a script of `conversations`
 * conversations, else `fresh` (no file yet, unreadable, or written for
 * another script shape).
 */
export function loadReplyState(file: string, fresh: ReplyState): ReplyState {
  let stored: StoredReplyState;
  try {
    stored = JSON.parse(readFileSync(file, 'utf8')) as StoredReplyState;
  } catch {
    return fresh;
  }
  if (
    !Array.isArray(stored.byPosition) ||
    stored.byPosition.length !== fresh.byPosition.length ||
    !Array.isArray(stored.cursors) ||
    stored.cursors.length !== fresh.cursors.length
  )
    return fresh;
  return {
    byPosition: stored.byPosition.map((entries) => new Map(entries)),
    cursors: stored.cursors,
    faultUses: new Map(stored.faultUses ?? []),
    served: new Set(stored.served ?? []),
  };
}

/** Writes `state` to `file` atomically (a temp file renamed over it), so a crash never leaves half a file. */
export function saveReplyState(file: string, state: ReplyState): void {
  const stored: StoredReplyState = {
    byPosition: state.byPosition.map((m) => [...m.entries()]),
    cursors: state.cursors,
    faultUses: [...state.faultUses.entries()],
    served: [...state.served],
  };
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, JSON.stringify(stored), { mode: 0o600 });
  renameSync(tmp, file);
}
