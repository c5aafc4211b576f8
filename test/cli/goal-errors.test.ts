/**
 * Bad input to `zuno goal …`: each a typed one-line error, and a refused
 * start writes nothing — no session row, no goal row, no event (the
 * checks run before the projection is opened or Temporal contacted).
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { expectNothingWritten, expectTypedFailure, makeHome, runZuno, tempDir, writeJson } from './helpers.js';

/** Goal rows in the home's SQLite projection (0 when there is none). */
function goalRows(home: string): number {
  const file = join(home, 'zuno.db');
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM "goals"').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

// Temporal is never reached: anything that tried would fail with temporal_unreachable instead.
const OFFLINE = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

describe('zuno goal start refuses bad input before anything is written', () => {
  const script = writeJson(tempDir('zuno-goal-bad-'), 'answers.json', { replies: [{ text: 'ok' }] });

  it.each([
    ['an empty objective', [''], 'the objective is empty: say what the goal should achieve'],
    ['white space only', ['  \n\t '], 'the objective is empty: say what the goal should achieve'],
    ['4001 characters', ['x'.repeat(4001)], 'the objective is 4001 characters long, more than 4000'],
  ])('%s → input_invalid', async (_what, args, message) => {
    const { home } = makeHome();
    const r = await runZuno(['goal', 'start', ...args, '--script', script], { home, env: OFFLINE });
    expect(expectTypedFailure(r, 'input_invalid')).toContain(message);
    expectNothingWritten(home);
    expect(goalRows(home)).toBe(0);
  });

  it('zero, negative and absurd budgets are all named in one line', async () => {
    const { home } = makeHome();
    const r = await runZuno(
      [
        'goal',
        'start',
        'Make CI green',
        '--script',
        script,
        '--token-budget',
        '0',
        '--time-budget',
        '-5m',
        '--tool-call-budget',
        '1e99',
        '--turn-budget',
        '-1',
      ],
      { home, env: OFFLINE },
    );
    const message = expectTypedFailure(r, 'input_invalid');
    expect(message.split('; ')).toEqual([
      '--token-budget must be a whole number from 1 to 10000000000 (got "0")',
      '--turn-budget must be a whole number from 1 to 100000000 (got "-1")',
      '--tool-call-budget must be a whole number from 1 to 1000000 (got "1e99")',
      '--time-budget must be a duration from 1s to 30d, like 90m or 2h30m (got "-5m")',
    ]);
    expectNothingWritten(home);
    expect(goalRows(home)).toBe(0);
  });

  it('a bad zuno.json goal section names the key; no model and no script is model_missing', async () => {
    const { home } = makeHome();
    const ws = tempDir('zuno-goal-bad-ws-');
    writeFileSync(join(ws, 'zuno.json'), JSON.stringify({ goal: { default_token_budget: -1, budget: 3 } }));
    const bad = await runZuno(['goal', 'start', 'Make CI green', '--dir', ws, '--script', script], {
      home,
      env: OFFLINE,
    });
    const message = expectTypedFailure(bad, 'config_invalid');
    expect(message).toContain('goal.default_token_budget');
    expect(message).toContain('budget');
    const plain = tempDir('zuno-goal-bad-ws-');
    expectTypedFailure(
      await runZuno(['goal', 'start', 'Make CI green', '--dir', plain], { home, env: OFFLINE }),
      'model_missing',
    );
    expectNothingWritten(home);
    expect(goalRows(home)).toBe(0);
  });
});

describe('goal ids and options', () => {
  it('an unknown goal id is goal_not_found naming it; a malformed one is a usage error', async () => {
    const { home } = makeHome();
    for (const cmd of [['show'], ['pause'], ['cancel'], ['resume'], ['budgets', '--token-budget', '5']]) {
      const [name, ...rest] = cmd;
      const r = await runZuno(['goal', name!, 'goal_nosuchgoal', ...rest], { home, env: OFFLINE });
      expect(expectTypedFailure(r, 'goal_not_found')).toBe(`no goal goal_nosuchgoal in Zuno's home ${home}`);
      const bad = await runZuno(['goal', name!, 'ses_abc', ...rest], { home, env: OFFLINE });
      expect(expectTypedFailure(bad, 'usage_error')).toContain('"ses_abc" is not a goal id');
    }
    const answer = await runZuno(['goal', 'answer', 'goal_nosuchgoal', 'main'], { home, env: OFFLINE });
    expectTypedFailure(answer, 'goal_not_found');
    expectTypedFailure(await runZuno(['goal', 'answer', 'goal_x1', '  '], { home, env: OFFLINE }), 'input_invalid');
    expectNothingWritten(home);
  });

  it('--status must be a goal status; --choice must be resume or keep-paused; budgets needs a budget', async () => {
    const { home } = makeHome();
    expect(expectTypedFailure(await runZuno(['goal', 'list', '--status', 'sleeping'], { home }), 'usage_error')).toBe(
      '--status "sleeping" is not a goal status (active, backoff, waiting_background, waiting_watch, paused, blocked, budget_limited, completed, cancelled)',
    );
    expect(
      expectTypedFailure(
        await runZuno(['goal', 'resume', 'goal_x1', '--choice', 'yes'], { home, env: OFFLINE }),
        'usage_error',
      ),
    ).toBe('--choice "yes" is not a choice (resume, keep-paused)');
    expect(
      expectTypedFailure(await runZuno(['goal', 'budgets', 'goal_x1'], { home, env: OFFLINE }), 'usage_error'),
    ).toContain('name at least one budget');
    expect(
      expectTypedFailure(
        await runZuno(['goal', 'budgets', 'goal_x1', '--time-budget', '0s'], { home, env: OFFLINE }),
        'input_invalid',
      ),
    ).toContain('--time-budget must be a duration');
    const empty = await runZuno(['goal', 'list'], { home });
    expect({ code: empty.code, out: empty.stdout }).toEqual({
      code: 0,
      out: 'no goals yet: start one with zuno goal start "…"\n',
    });
    expectNothingWritten(home);
  });
});

describe('zuno goal --help tells the truth', () => {
  it('lists every goal command and the exit codes; goal start lists every option', async () => {
    const { home } = makeHome();
    const help = await runZuno(['goal', '--help'], { home });
    expect(help.code).toBe(0);
    for (const c of ['start', 'list', 'show', 'pause', 'resume', 'answer', 'budgets', 'cancel'])
      expect(help.stdout).toMatch(new RegExp(`^  ${c} `, 'm'));
    expect(help.stdout).toContain('0    the goal completed');
    expect(help.stdout).toContain('130  Ctrl-C: the goal is paused');
    const start = await runZuno(['goal', 'start', '--help'], { home });
    for (const o of [
      '--dir',
      '--model',
      '--script',
      '--token-budget',
      '--turn-budget',
      '--tool-call-budget',
      '--time-budget',
      '--criterion',
      '--evidence-criterion',
      '--config',
      '--json',
    ])
      expect(start.stdout).toContain(`  ${o} `);
    const resume = await runZuno(['goal', 'resume', '--help'], { home });
    expect(resume.stdout).toContain('--choice <choice>');
  });
});
