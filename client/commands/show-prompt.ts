/**
 * `zuno session show <id> --prompt [TURN.STEP]` (issue 32, SE9): the system
 * segments a stored request actually carried, rebuilt from its
 * `session.prompt` receipt and the `prompt.segment` texts — what the model
 * was told, not what it would be told today (`zuno prompt show`).
 */
import { ZunoError } from '../../core/errors.js';
import { EV, parseEventData } from '../../core/events.js';
import type { ProjectionStore } from '../../activities/projection/index.js';
import type { Sink } from '../sink.js';

/** One stored request's system prompt. */
export interface StoredPrompt {
  sessionId: string;
  turn: number;
  step: number;
  attempt: number;
  sha256: string;
  tools: string[];
  /** Each segment's receipt line and its stored text (null if the text event is missing). */
  segments: { id: string; source: string; chars: number; sha256: string; text: string | null }[];
}

/**
 * The receipt of request `at` (`"T.S"`; its last attempt), or of the
 * session's newest request when `at` is absent, with the texts.
 * @throws ZunoError `input_invalid` for a malformed `at`; `session_not_found`;
 *   `prompt_not_found` when the session has no such receipt, saying why (no
 *   request yet, requests from before issue 32) or which requests it has.
 */
export async function storedPrompt(store: ProjectionStore, sessionId: string, at?: string): Promise<StoredPrompt> {
  const want = at === undefined ? null : parseStep(at);
  if (!(await store.getSession(sessionId))) throw new ZunoError('session_not_found', `no session ${sessionId}`);
  const all = (await store.eventsOfType(sessionId, EV.promptAssembled))
    .map((e) => parseEventData(EV.promptAssembled, e.data))
    .filter((r): r is NonNullable<typeof r> => r !== null);
  const r = all.filter((x) => !want || (x.turn === want.turn && x.step === want.step)).at(-1);
  if (!r) throw new ZunoError('prompt_not_found', await missingWhy(store, sessionId, at, all));
  const texts = new Map<string, string>();
  for (const e of await store.eventsOfType(sessionId, EV.promptSegment)) {
    const d = parseEventData(EV.promptSegment, e.data);
    if (d) texts.set(`${d.segment}:${d.sha256}`, d.text);
  }
  return {
    sessionId,
    turn: r.turn,
    step: r.step,
    attempt: r.attempt,
    sha256: r.sha256,
    tools: r.tools,
    segments: r.segments.map((s) => ({ ...s, text: texts.get(`${s.id}:${s.sha256}`) ?? null })),
  };
}

/** Why there is no receipt to show: no request yet, requests from before receipts, or the ones there are. */
async function missingWhy(
  store: ProjectionStore,
  sessionId: string,
  at: string | undefined,
  all: readonly { turn: number; step: number }[],
): Promise<string> {
  if (all.length > 0) {
    const steps = [...new Set(all.map((x) => `${x.turn}.${x.step}`))];
    const shown = steps.length > 12 ? [...steps.slice(0, 6), '…', ...steps.slice(-5)] : steps;
    return `session ${sessionId} has no stored prompt for request ${at}; stored: ${shown.join(', ')}`;
  }
  const sent = (await store.eventsOfType(sessionId, EV.providerRequest)).length;
  return sent === 0
    ? `session ${sessionId} has sent no model request yet`
    : `session ${sessionId} has no stored prompt: its requests were sent before Zuno recorded prompts`;
}

function parseStep(at: string): { turn: number; step: number } {
  const m = /^(\d+)\.(\d+)$/.exec(at);
  if (!m) throw new ZunoError('input_invalid', `--prompt takes a request as TURN.STEP, e.g. 0.1 (got "${at}")`);
  return { turn: Number(m[1]), step: Number(m[2]) };
}

/** Prints it: a heading, then each segment under its id, source and size, then its text. */
export function printStoredPrompt(p: StoredPrompt, json: boolean, sink: Sink): void {
  if (json) {
    sink.out(`${JSON.stringify(p, null, 2)}\n`);
    return;
  }
  const chars = p.segments.reduce((a, s) => a + s.chars, 0);
  const lines = [
    `System prompt of session ${p.sessionId}, request ${p.turn}.${p.step} (attempt ${p.attempt}) · ${p.segments.length} segments · ${chars.toLocaleString('en-US')} chars · sha256 ${p.sha256.slice(0, 16)}`,
    `Tools offered: ${p.tools.join(', ') || 'none'}`,
    '',
  ];
  p.segments.forEach((s, i) => {
    lines.push(
      `── ${i + 1}. ${s.id} · ${s.source} · ${s.chars.toLocaleString('en-US')} chars`,
      s.text ?? `(the text with sha256 ${s.sha256} is not stored)`,
      '',
    );
  });
  sink.out(`${lines.join('\n')}\n`);
}
