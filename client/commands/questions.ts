import type { QuestionRow } from '../../activities/projection/index.js';
import { ZunoError } from '../../core/errors.js';
import { plainTerminalLine } from '../../core/terminal-text.js';
import { answerQuestion, findQuestion, snoozeQuestion } from '../questions.js';
import { connectTemporal, resolvePaths } from '../context.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { checkSessionId } from '../session-start.js';
import { openExistingStore } from '../session-target.js';
import { cut, textTable } from '../text-table.js';
import { ago } from './session-list.js';

/**
 * `zuno questions list [--session S] [--json]` (issue 11 item 5; QU10,
 * QU12): the questions still answerable, plus answered ones whose answer has
 * not reached the model yet (status rows), oldest first, from the projection
 * (no Temporal server needed). `--json` prints the stored rows, each with
 * its derived `delivery`.
 * @throws ZunoError `session_id_invalid` for a malformed `--session`.
 */
export async function questionsListCommand(
  opts: { session?: string; json?: boolean },
  sink: Sink = processSink,
): Promise<number> {
  if (opts.session !== undefined) checkSessionId(opts.session);
  const store = await openExistingStore(resolvePaths());
  try {
    const rows = store
      ? (
          await store.listQuestions({ ...(opts.session !== undefined ? { sessionId: opts.session } : {}), limit: 1000 })
        ).filter((r) => r.delivery !== 'applied')
      : [];
    // A question of a session whose workflow has closed (a `zuno run` ends when its turn is done) cannot be
    // answered there: it is answered as the session's next message.
    const closed = new Set<string>();
    for (const id of new Set(rows.map((r) => r.sessionId))) {
      const status = (await store!.getSession(id))?.status;
      if (status !== undefined && CLOSED.has(status)) closed.add(id);
    }
    if (opts.json)
      sink.out(
        `${JSON.stringify(
          rows.map((r) => ({ ...r, sessionClosed: closed.has(r.sessionId) })),
          null,
          2,
        )}\n`,
      );
    else if (rows.length === 0) sink.out('no questions are open\n');
    else {
      sink.out(renderQuestions(rows, Date.now(), closed));
      if (closed.size > 0)
        sink.out(
          `session closed: answer those as the session's next message, e.g. zuno run --session ${[...closed][0]} "…"\n`,
        );
    }
  } finally {
    await store?.close();
  }
  return 0;
}

/** Session statuses whose workflow has closed (the projection's `sessions.status`). */
const CLOSED: ReadonlySet<string> = new Set(['completed', 'failed', 'blocked', 'interrupted', 'cancelled']);

/**
 * The `questions list` table: one row per item of an open question, one
 * status row per answered one; `closed` sessions' rows say so instead of a
 * timer. Pure.
 */
export function renderQuestions(rows: QuestionRow[], nowMs: number, closed: ReadonlySet<string> = new Set()): string {
  const lines: string[][] = [];
  for (const r of rows) {
    const timer = closed.has(r.sessionId)
      ? 'session closed'
      : r.status !== 'pending'
        ? '—'
        : r.view.autoDefer
          ? timerText(r.view.autoDefer, nowMs)
          : 'no deadline';
    for (const item of r.view.items) {
      const answer = r.view.answers[item.itemId];
      lines.push([
        r.id,
        item.itemId,
        r.sessionId,
        cut(plainTerminalLine(item.question + (item.options?.length ? ` [${item.options.join(' | ')}]` : '')), 60),
        answer !== undefined ? `answered: ${cut(plainTerminalLine(answer), 30)}` : r.delivery!,
        `${timer} · rev ${r.revision}`,
        ago(nowMs - r.askedAtMs),
      ]);
    }
  }
  return textTable(['QUESTION', 'ITEM', 'SESSION', 'ASKS', 'STATE', 'TIMER', 'ASKED'], lines);
}

/** What an armed question's timer says: `auto-defers in 41 s`, `snoozed`, `deferred`. */
function timerText(a: NonNullable<QuestionRow['view']['autoDefer']>, nowMs: number): string {
  if (a.state !== 'armed') return a.state;
  const left = Math.max(0, Math.ceil((a.deadlineAtMs - nowMs) / 1000));
  return `auto-defers in ${left} s`;
}

/** `--item <itemId>=<text>` values → answers by item id. @throws ZunoError `usage_error`. */
export function parseItems(items: string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const spec of items ?? []) {
    const at = spec.indexOf('=');
    const id = at > 0 ? spec.slice(0, at).trim() : '';
    const text = at > 0 ? spec.slice(at + 1) : '';
    if (!/^qi_\d+$/.test(id) || text.trim() === '')
      throw new ZunoError(
        'usage_error',
        `--item takes <itemId>=<text>, e.g. --item qi_1=main (got ${JSON.stringify(spec)})`,
      );
    if (id in out) throw new ZunoError('usage_error', `--item ${id} is given twice`);
    out[id] = text;
  }
  if (Object.keys(out).length === 0)
    throw new ZunoError('usage_error', 'answer at least one item: --item qi_1=<text> (zuno questions list shows them)');
  return out;
}

/**
 * `zuno questions answer <id> [--session S] --item <itemId>=<text> … [--json]`
 * and `zuno questions snooze <id> [--session S] [--json]`: answers items of
 * a pending question (the rest stay pending; the complete answer reaches the
 * model as a message), or pauses its auto-defer timer.
 * @throws ZunoError `usage_error`, `question_not_found`, `question_ambiguous`,
 *   `question_already_answered`, `question_stale_revision`, `question_invalid`,
 *   `question_command_conflict`, `session_not_running`.
 */
export async function questionsActCommand(
  verb: 'answer' | 'snooze',
  id: string,
  opts: { session?: string; item?: string[]; json?: boolean },
  sink: Sink = processSink,
): Promise<number> {
  if (opts.session !== undefined) checkSessionId(opts.session);
  const answers = verb === 'answer' ? parseItems(opts.item) : {};
  if (verb === 'snooze' && opts.item?.length) throw new ZunoError('usage_error', '--item applies to answer only');
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  if (!store) throw new ZunoError('question_not_found', `no pending question ${id}: Zuno's home has no sessions yet`);
  try {
    const row = await findQuestion(store, id, opts.session);
    const temporal = await connectTemporal(paths, opts.json ? null : (line) => sink.err(`${line}\n`));
    try {
      if (verb === 'snooze') {
        const r = await snoozeQuestion(temporal.client, row);
        if (opts.json) sink.out(`${JSON.stringify({ sessionId: row.sessionId, ...r })}\n`);
        else sink.out(`${row.id}: auto-defer ${r.autoDefer ? r.autoDefer.state : 'not set (no deadline)'}\n`);
        return 0;
      }
      const r = await answerQuestion(temporal.client, row, answers);
      if (opts.json) sink.out(`${JSON.stringify({ sessionId: row.sessionId, ...r })}\n`);
      else if (r.status === 'answered')
        sink.out(`answered ${row.id}; the answer goes to session ${row.sessionId} as a message\n`);
      else
        sink.out(
          `saved ${Object.keys(answers).join(', ')} of ${row.id}; still to answer: ${r.pendingItems.join(', ')}\n`,
        );
      return 0;
    } finally {
      await temporal.connection.close();
    }
  } finally {
    await store.close();
  }
}
