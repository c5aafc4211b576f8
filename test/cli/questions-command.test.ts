import { describe, expect, it } from 'vitest';
import { parseItems, renderQuestions } from '../../client/commands/questions.js';
import type { QuestionRow } from '../../activities/projection/types.js';

/** `zuno questions answer --item` parsing and the `questions list` table (issue 11 item 5). Pure. */
describe('zuno questions', () => {
  it('parses --item <itemId>=<text>; a malformed, empty or repeated item is a usage error', () => {
    expect(parseItems(['qi_1=main', 'qi_2=a=b'])).toEqual({ qi_1: 'main', qi_2: 'a=b' });
    for (const bad of [['main'], ['qi_1='], ['x=1'], ['qi_1=a', 'qi_1=b'], []])
      expect(() => parseItems(bad)).toThrow(expect.objectContaining({ code: 'usage_error' }));
  });

  it('lists one row per item with its answer or delivery state and the timer', () => {
    const row: QuestionRow = {
      sessionId: 'ses_1',
      id: 'q_0_0_1',
      status: 'pending',
      revision: 2,
      inputId: null,
      askedAtMs: 0,
      updatedAtMs: 0,
      delivery: 'waiting_answer',
      view: {
        questionId: 'q_0_0_1',
        rowId: 'tc_0_0_1',
        callId: 'c',
        tool: 'question',
        delivery: 'deferred',
        items: [
          { itemId: 'qi_1', question: 'Which branch?', options: ['main', 'next'] },
          { itemId: 'qi_2', question: 'Tag it?' },
        ],
        answers: { qi_1: 'main' },
        status: 'pending',
        revision: 2,
        autoDefer: { deadlineAtMs: 120_000, countdownAtMs: 60_000, state: 'armed' },
        turn: 0,
        step: 0,
        askedAtMs: 0,
      },
    };
    const out = renderQuestions([row], 5_000);
    expect(out).toContain('Which branch? [main | next]');
    expect(out).toContain('answered: main');
    expect(out).toMatch(/qi_2 .*waiting_answer/);
    // An armed timer says how long is left (deadline 120 s after asking, now 5 s).
    expect(out).toContain('auto-defers in 115 s · rev 2');
    // A question of a closed session says so; an answer on several lines stays on one.
    const closed = renderQuestions(
      [{ ...row, view: { ...row.view, answers: { qi_1: 'a\nb' } } }],
      5_000,
      new Set([row.sessionId]),
    );
    expect(closed).toContain('session closed · rev 2');
    expect(closed).toContain('answered: a b');
  });
});
