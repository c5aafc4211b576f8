/**
 * The pure rule-file budget (SE10, SPEC-DIGEST SE27): min(64 KB, context/4)
 * with "64 KB" = 64 000 bytes, shared in order, whole or not at all.
 */
import { describe, expect, it } from 'vitest';
import { planRuleFiles, renderRulesSegment, RULE_BUDGET_CAP_BYTES, ruleBudgetBytes } from '../../core/rule-budget.js';

describe('ruleBudgetBytes', () => {
  it('is 64 000 bytes (SI "64 KB", not 65 536) without a context window', () => {
    expect(RULE_BUDGET_CAP_BYTES).toBe(64_000);
    expect(ruleBudgetBytes()).toBe(64_000);
  });

  it('is a quarter of the context window when that is smaller, never above 64 000', () => {
    expect(ruleBudgetBytes(1_000_000)).toBe(64_000);
    expect(ruleBudgetBytes(256_000)).toBe(64_000);
    expect(ruleBudgetBytes(255_996)).toBe(63_999);
    expect(ruleBudgetBytes(100_003)).toBe(25_000);
    expect(ruleBudgetBytes(0)).toBe(0);
  });
});

describe('planRuleFiles', () => {
  const f = (name: string, bytes: number) => ({ name, bytes });

  it('a file that exactly fills the remaining budget enters; the budget is shared in order', () => {
    const plan = planRuleFiles([f('user', 40), f('workspace', 60)], 100);
    expect(plan.inForce.map((e) => e.name)).toEqual(['user', 'workspace']);
    expect(plan.skipped).toEqual([]);
    expect(plan.remaining).toBe(0);
  });

  it('a file over the remaining budget is skipped whole with its bytes, the budget and what was left; a later smaller file still enters', () => {
    const plan = planRuleFiles([f('a', 30), f('big', 80), f('small', 50)], 100);
    expect(plan.inForce.map((e) => e.name)).toEqual(['a', 'small']);
    expect(plan.skipped).toEqual([{ entry: f('big', 80), bytes: 80, budget: 100, remaining: 70 }]);
    expect(plan.remaining).toBe(20);
  });

  it('a file larger than the whole budget is skipped even when it comes first', () => {
    const plan = planRuleFiles([f('huge', 64_001), f('ok', 10)], 64_000);
    expect(plan.inForce.map((e) => e.name)).toEqual(['ok']);
    expect(plan.skipped).toEqual([{ entry: f('huge', 64_001), bytes: 64_001, budget: 64_000, remaining: 64_000 }]);
  });

  it('empty files always enter (they use nothing); nothing at all leaves the whole budget', () => {
    expect(planRuleFiles([f('empty', 0)], 0).inForce).toHaveLength(1);
    expect(planRuleFiles([], 64_000)).toEqual({ inForce: [], skipped: [], remaining: 64_000 });
  });
});

describe('renderRulesSegment', () => {
  it('keeps each text verbatim and whole under a heading naming its scope and exact path, in order', () => {
    const user = '# Mine\n\n- tabs, never spaces\n';
    const ws = 'Ünïcode rules ✓\n```\ncode\n```';
    const text = renderRulesSegment([
      { path: '/h/AGENTS.md', scope: 'user', text: user },
      { path: '/w/AGENTS.md', scope: 'workspace', text: ws },
    ])!;
    expect(text).toContain(`## User rules: /h/AGENTS.md\n\n${user}`);
    expect(text).toContain(`## Workspace rules: /w/AGENTS.md\n\n${ws}`);
    expect(text.indexOf(user)).toBeLessThan(text.indexOf(ws));
  });

  it('is null when no file has text (the segment is absent)', () => {
    expect(renderRulesSegment([])).toBeNull();
    expect(renderRulesSegment([{ path: '/w/AGENTS.md', scope: 'workspace', text: '' }])).toBeNull();
  });
});
