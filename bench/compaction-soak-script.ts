/**
 * The long Goal of bench/compaction-soak.ts (issue 28 item 7): its workspace
 * (one ~2 KB text file per turn) and its provider script, built in code.
 *
 * Every Goal turn is two model steps: (1) a `todo_update` that changes the
 * one Todo (so the GL23 progress fingerprint moves and the Goal never pauses
 * `no_progress`) beside a `read` of that turn's file (so the conversation
 * grows by ~700 tokens a turn), (2) a short text that ends the turn. The
 * last turn marks the Todo completed and completes the Goal with
 * `goal_update` (no criteria, so no evidence is needed). A thread matching
 * `Compaction request` answers every summary request with the same summary.
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { countTokens } from 'gpt-tokenizer';
import { conversationPosition, firstUserText } from '../local-provider/position.js';
import { ScriptSchema, type Script, type ScriptReply } from '../local-provider/script.js';

/** The tools the Goal's session offers (meta `tools`): what the script calls, nothing more. */
export const SOAK_TOOLS = ['read', 'todo_update', 'goal_update'];

/** The Goal's objective (the session's first user message). */
export const SOAK_OBJECTIVE =
  'Work through the chunk files under chunks/ one per turn: read chunk N, record it on the Todo, then go on with the next until all are done.';

/** The summary every compaction request gets (the `Compaction request` thread), ~300 bytes. */
export const SOAK_SUMMARY = [
  'Goal: read the chunk files under chunks/ one per turn and record each on the single Todo td_1.',
  'Progress: the chunks before the retained conversation are read and recorded; nothing is blocked.',
  'Next: continue with the next chunk after the last one visible in the retained conversation.',
].join('\n');

/**
 * The summary text of `bytes` bytes at least: {@link SOAK_SUMMARY}, then
 * numbered "Reference" lines (what a real summary's references and
 * decisions look like in size) up to the length. `bytes` ≤ its length: the
 * plain summary.
 */
export function soakSummary(bytes: number): string {
  const lines = [SOAK_SUMMARY];
  for (let i = 1; lines.join('\n').length < bytes; i++) {
    lines.push(
      `Reference ${i}: chunks/c${String(i).padStart(4, '0')}.txt was read and recorded on td_1; nothing in it is open.`,
    );
  }
  return lines.join('\n');
}

/** Path of turn `k`'s file (1-based), relative to the workspace. */
export const chunkPath = (k: number) => `chunks/c${String(k).padStart(4, '0')}.txt`;

const WORDS = (
  'the parser reads each record from the ledger and checks its total against the batch before it writes ' +
  'a summary line for the report while the worker keeps a count of every entry it has seen so far today'
).split(' ');

/**
 * Writes `turns` files of about `bytes` bytes each under `<workspace>/chunks/`:
 * English-like lines (about 4–5 characters a token, as prose and code are),
 * each line distinct (it names its chunk and line), so nothing repeats.
 */
export function writeSoakWorkspace(workspace: string, turns: number, bytes = 2000): void {
  mkdirSync(join(workspace, 'chunks'), { recursive: true });
  for (let k = 1; k <= turns; k++) {
    const lines: string[] = [];
    for (let l = 0, size = 0; size < bytes; l++) {
      const words = Array.from({ length: 12 }, (_, i) => WORDS[(k * 31 + l * 7 + i * 3) % WORDS.length]);
      const line = `Chunk ${k}, line ${l}: ${words.join(' ')}.`;
      lines.push(line);
      size += line.length + 1;
    }
    writeFileSync(join(workspace, chunkPath(k)), `${lines.join('\n')}\n`);
  }
}

/** The work step of turn `k` of `turns`: the Todo change and the chunk's read (the last turn also completes). */
function workStep(k: number, turns: number): ScriptReply {
  const todo =
    k === 1
      ? { op: 'add', title: 'Chunk 1', status: 'in_progress' }
      : k === turns
        ? { op: 'set', id: 'td_1', title: `Chunk ${k}`, status: 'completed' }
        : { op: 'set', id: 'td_1', title: `Chunk ${k}` };
  const toolCalls: NonNullable<ScriptReply['toolCalls']> = [
    { name: 'todo_update', arguments: { expected_revision: k - 1, changes: [todo] } },
    { name: 'read', arguments: { path: chunkPath(k) } },
  ];
  if (k === turns) toolCalls.push({ name: 'goal_update', arguments: { expected_revision: 1, complete: true } });
  return { toolCalls };
}

/**
 * The provider script of a `turns`-turn Goal. `contextWindow` (tokens), when
 * given and the local provider knows the key, makes the provider refuse a
 * request over it with a real context-limit error; a provider without the
 * key gets the script without it (the bench says so). Every summary request
 * is answered with `soakSummary(summaryBytes)`.
 */
export function soakScript(
  turns: number,
  contextWindow?: number,
  summaryBytes = 0,
): { script: Script; windowEnforced: boolean } {
  const replies: ScriptReply[] = [];
  for (let k = 1; k <= turns; k++) {
    replies.push(workStep(k, turns));
    replies.push({ text: k === turns ? 'All chunks are done; the goal is complete.' : `Chunk ${k} recorded.` });
  }
  // Every summary request gets the same reply; copies cover a thread position that grows with each compaction.
  const summaries = Array.from({ length: turns }, () => ({ text: soakSummary(summaryBytes) }));
  const script = { replies, threads: [{ match: 'Compaction request', replies: summaries }] };
  if (contextWindow === undefined) return { script, windowEnforced: false };
  const withWindow = { ...script, contextWindow };
  const parsed = ScriptSchema.safeParse(withWindow);
  return parsed.success ? { script: parsed.data, windowEnforced: true } : { script, windowEnforced: false };
}

/** A Chat Completions message as captured (the fields the count reads). */
interface WireMessage {
  content?: unknown;
  tool_calls?: { function?: { name?: string; arguments?: string } }[];
}

/**
 * Tokens of one captured Chat Completions request as the window sees it,
 * counted the way Zuno's estimator counts the messages it assembles
 * (activities/session/context/estimator.ts, o200k_base) but on what was
 * sent: every message's text + 4, every tool call's name and arguments + 4,
 * every tool declaration's JSON + 4, + 3 for the reply's priming. So a
 * request refused or cut before Zuno recorded its usage is counted too.
 */
export function requestTokens(body: unknown): number {
  const b = body as { messages?: WireMessage[]; tools?: unknown[] };
  const text = (c: unknown) => (typeof c === 'string' ? c : c === undefined || c === null ? '' : JSON.stringify(c));
  let n = 3;
  for (const m of b.messages ?? []) {
    n += 4 + countTokens(text(m.content));
    for (const c of m.tool_calls ?? []) n += 4 + countTokens(`${c.function?.name ?? ''}${c.function?.arguments ?? ''}`);
  }
  for (const t of b.tools ?? []) n += 4 + countTokens(JSON.stringify(t));
  return n;
}

/** True for a captured Chat Completions request of the compaction thread (its first user message starts the summary request). */
export function isCompactionRequest(body: unknown): boolean {
  return firstUserText('chat-completions', body as Record<string, unknown>).includes('Compaction request');
}

/**
 * The Goal turn (0-based) a captured main request belongs to: the script's
 * reply it asks for is its conversation position's step count (compacted
 * steps included, as the scripted server counts them), two replies a turn.
 */
export function turnOfRequest(body: unknown): number {
  return Math.floor(conversationPosition('chat-completions', body as Record<string, unknown>).steps / 2);
}
