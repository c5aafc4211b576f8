/**
 * What `zuno goal …` checks before anything starts: the objective, the
 * criteria, every budget flag (all problems named at once), the goal id,
 * the Resume goal / Keep paused rule (GL27: no default), `--status`, and
 * the host's default token budget from zuno.json.
 */
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZunoError } from '../../core/errors.js';
import { MAX_GOAL_OBJECTIVE_CHARS } from '../../core/goal/objective.js';
import { checkGoalId } from '../../client/goal-id.js';
import { goalStartInput, resumeChoice, withHostTokenBudget } from '../../client/goal-input.js';
import { loadZunoConfig } from '../../client/zuno-config.js';

function refusal(fn: () => unknown): ZunoError {
  try {
    fn();
  } catch (err) {
    if (err instanceof ZunoError) return err;
    throw err;
  }
  throw new Error('expected a ZunoError');
}

describe('goalStartInput', () => {
  it('takes a trimmed objective, criteria in order and user budgets', () => {
    const g = goalStartInput('  Make CI green  ', {
      criterion: ['the changelog names the fix'],
      evidenceCriterion: ['npm test passes'],
      tokenBudget: '200000',
      turnBudget: '30000',
      toolCallBudget: '50',
      timeBudget: '2h30m',
    });
    expect(g).toEqual({
      objective: 'Make CI green',
      criteria: [
        { text: 'the changelog names the fix', needsEvidence: false },
        { text: 'npm test passes', needsEvidence: true },
      ],
      budgets: {
        tokens: { limit: 200000, source: 'user' },
        turnTokens: 30000,
        toolCalls: 50,
        timeMs: 9_000_000,
      },
    });
  });

  it.each([[''], ['   '], ['\n\t']])('refuses an empty objective %j as input_invalid', (objective) => {
    const e = refusal(() => goalStartInput(objective, {}));
    expect(e.code).toBe('input_invalid');
    expect(e.message).toContain('the objective is empty');
  });

  it('refuses an objective over the limit and one holding NUL', () => {
    expect(refusal(() => goalStartInput('x'.repeat(MAX_GOAL_OBJECTIVE_CHARS + 1), {})).message).toContain(
      `more than ${MAX_GOAL_OBJECTIVE_CHARS}`,
    );
    expect(goalStartInput('x'.repeat(MAX_GOAL_OBJECTIVE_CHARS), {}).objective).toHaveLength(MAX_GOAL_OBJECTIVE_CHARS);
    expect(refusal(() => goalStartInput('a\u0000b', {})).message).toContain('NUL');
  });

  it('names every bad value at once, each by its flag', () => {
    const e = refusal(() =>
      goalStartInput('', {
        tokenBudget: '0',
        turnBudget: '-3',
        toolCallBudget: '1e99',
        timeBudget: '-5m',
        criterion: [' '],
        evidenceCriterion: ['ok', ''],
      }),
    );
    expect(e.code).toBe('input_invalid');
    const problems = e.message.split('; ');
    expect(problems).toEqual([
      'the objective is empty: say what the goal should achieve',
      '--criterion #1 is empty',
      '--evidence-criterion #2 is empty',
      expect.stringMatching(/^--token-budget must be a whole number from 1 to 10000000000 \(got "0"\)$/),
      expect.stringMatching(/^--turn-budget must be a whole number .*\(got "-3"\)$/),
      expect.stringMatching(/^--tool-call-budget must be a whole number from 1 to 1000000 \(got "1e99"\)$/),
      expect.stringMatching(/^--time-budget must be a duration from 1s to 30d.*\(got "-5m"\)$/),
    ]);
  });

  it('refuses absurd budgets: beyond the caps, a 0s or 31-day time budget', () => {
    const e = refusal(() =>
      goalStartInput('ok', { tokenBudget: '99999999999', toolCallBudget: '1000001', timeBudget: '31d' }),
    );
    expect(e.message.split('; ')).toHaveLength(3);
    expect(refusal(() => goalStartInput('ok', { timeBudget: '0s' })).message).toContain('--time-budget');
  });
});

describe('the host default token budget (zuno.json goal.default_token_budget, GL13)', () => {
  it('applies only when the person set no token budget, marked host_default', () => {
    expect(withHostTokenBudget({}, 500_000)).toEqual({ tokens: { limit: 500_000, source: 'host_default' } });
    const mine = { tokens: { limit: 10, source: 'user' as const } };
    expect(withHostTokenBudget(mine, 500_000)).toBe(mine);
    expect(withHostTokenBudget({ toolCalls: 3 }, undefined)).toEqual({ toolCalls: 3 });
  });

  it('is read from zuno.json; unknown keys and bad values are named', () => {
    const dir = mkdtempSync(join(tmpdir(), 'zuno-goal-cfg-'));
    writeFileSync(join(dir, 'zuno.json'), JSON.stringify({ goal: { default_token_budget: 750000 } }));
    expect(loadZunoConfig(dir).goal.default_token_budget).toBe(750000);
    expect(loadZunoConfig(mkdtempSync(join(tmpdir(), 'zuno-goal-cfg-'))).goal.default_token_budget).toBeUndefined();
    writeFileSync(join(dir, 'zuno.json'), JSON.stringify({ goal: { default_token_budget: 0, tokens: 5 } }));
    const e = refusal(() => loadZunoConfig(dir));
    expect(e.code).toBe('config_invalid');
    expect(e.message).toContain('goal.default_token_budget');
    expect(e.message).toContain('tokens');
  });
});

describe('checkGoalId', () => {
  it('accepts goal ids and refuses anything else as a usage error', () => {
    expect(checkGoalId('goal_mx4p0n2b5f18aea7')).toBe('goal_mx4p0n2b5f18aea7');
    for (const bad of ['', 'goal_', 'ses_abc', 'goal_a b', '../goal_x']) {
      const e = refusal(() => checkGoalId(bad));
      expect(e.code).toBe('usage_error');
      expect(e.message).toContain('is not a goal id');
    }
  });
});

describe('resumeChoice (GL27: skipping authorizes nothing)', () => {
  it('an unknown-outcome pause needs an explicit choice: asked on a terminal, refused off one', () => {
    expect(resumeChoice('goal_a', 'uncertain_side_effect', undefined, true)).toBe('ask');
    const e = refusal(() => resumeChoice('goal_a', 'uncertain_side_effect', undefined, false));
    expect(e.code).toBe('usage_error');
    expect(e.message).toContain('--choice resume');
    expect(e.message).toContain('--choice keep-paused');
    expect(resumeChoice('goal_a', 'uncertain_side_effect', 'keep-paused', false)).toBe('keep_paused');
    expect(resumeChoice('goal_a', 'uncertain_side_effect', 'resume', false)).toBe('resume');
  });

  it('other pauses resume unless told to keep paused; a misspelt choice is refused', () => {
    expect(resumeChoice('goal_a', 'no_progress', undefined, false)).toBe('resume');
    expect(resumeChoice('goal_a', 'token_budget', 'keep-paused', false)).toBe('keep_paused');
    const e = refusal(() => resumeChoice('goal_a', 'no_progress', 'yes', false));
    expect(e.code).toBe('usage_error');
    expect(e.message).toContain('resume, keep-paused');
  });
});
