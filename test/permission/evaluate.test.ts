import { describe, expect, it } from 'vitest';
import { callEffect } from '../../core/permission/effect.js';
import { evaluatePermission } from '../../core/permission/evaluate.js';
import { exactPattern, globMatch } from '../../core/permission/glob.js';
import type {
  CallSubject,
  PermissionAction,
  PermissionMode,
  PermissionRule,
  SessionGrant,
} from '../../core/permission/types.js';
import type { ToolEffect } from '../../core/tools/types.js';

const cmd = (...commands: string[]): CallSubject => ({ kind: 'commands', commands });
const paths = (...p: string[]): CallSubject => ({ kind: 'paths', paths: p });
const none: CallSubject = { kind: 'none' };
const rule = (tool: string, action: PermissionAction, pattern?: string): PermissionRule => ({
  tool,
  action,
  ...(pattern !== undefined ? { pattern } : {}),
});

/** Decides one call; the effect defaults to what the tool declares. */
function decide(
  mode: PermissionMode,
  rules: PermissionRule[],
  tool: string,
  subject: CallSubject,
  opts: { effect?: ToolEffect; grants?: SessionGrant[] } = {},
) {
  return evaluatePermission(
    { mode, rules },
    { tool, effect: opts.effect ?? callEffect(tool, {}), subject },
    opts.grants ?? [],
  );
}

describe('rule patterns: anchored globs (docs/permissions.md)', () => {
  it.each([
    ['rm -rf*', 'rm -rf build', true],
    ['rm -rf*', 'sudo rm -rf build', false],
    ['git *', 'git', false],
    ['git *', 'git push origin main', true],
    ['src/*', 'src/a/b.ts', true],
    ['*.ts', 'src/a.ts', true],
    ['?.ts', 'a.ts', true],
    ['?.ts', 'ab.ts', false],
    ['*', '', true],
    ['a\\*b', 'a*b', true],
    ['a\\*b', 'axb', false],
    ['*a*a*a*a*b', 'a'.repeat(5000), false],
  ])('%j vs %j → %s', (pattern, text, expected) => {
    expect(globMatch(pattern, text)).toBe(expected);
  });

  it('an exact pattern matches its text only', () => {
    for (const text of ['ls *.ts', 'printf a\\nb', 'echo ?', 'rm -rf build']) {
      expect(globMatch(exactPattern(text), text)).toBe(true);
    }
    expect(globMatch(exactPattern('ls *.ts'), 'ls a.ts')).toBe(false);
  });
});

describe('rules: ordered, the last match wins', () => {
  const shell = [rule('shell', 'ask', '*'), rule('shell', 'allow', 'git *'), rule('shell', 'deny', 'git push*')];
  it.each<[string, PermissionRule[], string, PermissionAction, string]>([
    ['catch-all first', shell, 'npm test', 'ask', 'rule shell "*" → ask'],
    ['narrow rule overrides the catch-all', shell, 'git status', 'allow', 'rule shell "git *" → allow'],
    ['narrower still overrides that', shell, 'git push origin', 'deny', 'rule shell "git push*" → deny'],
    [
      'the catch-all written last wins over everything',
      [...shell, rule('shell', 'ask', '*')],
      'git push',
      'ask',
      'rule shell "*" → ask',
    ],
    ['whole-tool rule matches every subject', [rule('shell', 'deny')], 'ls', 'deny', 'rule shell → deny'],
    [
      'a later pattern refines a whole-tool rule',
      [rule('shell', 'deny'), rule('shell', 'allow', 'ls*')],
      'ls -la',
      'allow',
      'rule shell "ls*" → allow',
    ],
    ['* covers every tool', [rule('*', 'ask'), rule('read', 'allow')], 'x', 'ask', 'rule * → ask'],
    ['a rule for another tool does not match', [rule('read', 'deny')], 'ls', 'allow', 'no rule for shell: allowed'],
    ['no rule: allowed in standard mode', [], 'rm -rf /', 'allow', 'no rule for shell: allowed'],
  ])('%s', (_name, rules, command, action, reason) => {
    const d = decide('standard', rules, 'shell', cmd(command));
    expect(d.action).toBe(action);
    expect(d.reason).toBe(reason);
    expect(d.subjectText).toBe(command);
  });

  it('matching is anchored: a pattern does not match inside a longer command', () => {
    expect(decide('standard', [rule('shell', 'deny', 'rm -rf*')], 'shell', cmd('echo rm -rf x')).action).toBe('allow');
  });

  it('path patterns are read in the normalized spelling', () => {
    const rules = [rule('read', 'deny', './secrets//*')];
    expect(decide('standard', rules, 'read', paths('secrets/key')).action).toBe('deny');
    expect(decide('standard', rules, 'read', paths('src/a.ts')).action).toBe('allow');
  });
});

describe('the edit group and tool keys', () => {
  it.each<[string, PermissionAction]>([
    ['write', 'deny'],
    ['apply_patch', 'deny'],
    ['report_write', 'allow'], // report publishing is its own capability, not edit
    ['read', 'allow'],
    ['shell', 'allow'],
  ])('edit → deny applies to %s: %s', (tool, action) => {
    const subject = tool === 'shell' ? cmd('ls') : tool === 'report_write' ? none : paths('src/a.ts');
    expect(decide('standard', [rule('edit', 'deny')], tool, subject).action).toBe(action);
  });

  it('a rule under the tool name and one under its group are ordered together', () => {
    const rules = [rule('edit', 'deny'), rule('write', 'allow', 'docs/*')];
    expect(decide('standard', rules, 'write', paths('docs/a.md')).action).toBe('allow');
    expect(decide('standard', rules, 'apply_patch', paths('docs/a.md')).action).toBe('deny');
    expect(decide('standard', [...rules, rule('edit', 'ask', 'docs/*')], 'write', paths('docs/a.md')).action).toBe(
      'ask',
    );
  });
});

describe('several subjects: the most restrictive wins (deny > ask > allow)', () => {
  const rules = [rule('shell', 'allow', '*'), rule('shell', 'ask', 'sh'), rule('shell', 'deny', 'rm -rf*')];
  it('a pipeline asks when one stage asks', () => {
    const d = decide('standard', rules, 'shell', cmd('cat a', 'sh'));
    expect(d).toMatchObject({ action: 'ask', subjectText: 'sh', grantPattern: 'sh', grantPatterns: ['sh'] });
  });
  it('a list is denied when one command is denied, whatever asks', () => {
    const d = decide('standard', rules, 'shell', cmd('sh', 'rm -rf x', 'ls'));
    expect(d).toMatchObject({ action: 'deny', reason: 'rule shell "rm -rf*" → deny', subjectText: 'rm -rf x' });
    expect(d.grantPattern).toBeUndefined();
  });
  it('every asking subject gets its own exact grant pattern', () => {
    const d = decide('standard', [rule('shell', 'ask')], 'shell', cmd('npm test', 'tee *.log'));
    expect(d.subjectText).toBe('npm test; tee *.log');
    expect(d.grantPatterns).toEqual(['npm test', 'tee \\*.log']);
  });
  it('unwrapped spellings are matched too (sudo rm -rf / → rm -rf /)', () => {
    const subject: CallSubject = { kind: 'commands', commands: ['sudo rm -rf /'], unwrapped: ['rm -rf /'] };
    expect(decide('allow_all', [rule('shell', 'deny', 'rm -rf*')], 'shell', subject)).toMatchObject({
      action: 'deny',
      subjectText: 'rm -rf /',
    });
  });
  it('a patch touching several files: one denied file denies the patch', () => {
    const d = decide(
      'standard',
      [rule('edit', 'deny', '.github/*')],
      'apply_patch',
      paths('src/a.ts', '.github/ci.yml'),
    );
    expect(d).toMatchObject({ action: 'deny', subjectText: '.github/ci.yml' });
  });
});

describe('modes', () => {
  it.each<[PermissionMode, string, CallSubject, PermissionRule[], PermissionAction, string]>([
    ['strict', 'shell', cmd('ls'), [], 'ask', 'strict mode: shell changes things'],
    ['strict', 'shell', cmd('ls'), [rule('shell', 'allow')], 'ask', 'strict mode: shell changes things'],
    ['strict', 'write', paths('a.ts'), [], 'ask', 'strict mode: write changes things'],
    ['strict', 'apply_patch', paths('a.ts'), [], 'ask', 'strict mode: apply_patch changes things'],
    ['strict', 'report_write', none, [], 'ask', 'strict mode: report_write changes things'],
    ['strict', 'plan_update', none, [], 'ask', 'strict mode: plan_update changes things'],
    ['strict', 'todo_update', none, [], 'ask', 'strict mode: todo_update changes things'],
    ['strict', 'goal_update', none, [], 'ask', 'strict mode: goal_update changes things'],
    ['strict', 'shell', cmd('rm -rf x'), [rule('shell', 'deny', 'rm*')], 'deny', 'rule shell "rm*" → deny'],
    ['strict', 'read', paths('a.ts'), [], 'allow', 'no rule for read: allowed'],
    ['strict', 'glob', paths('.'), [], 'allow', 'no rule for glob: allowed'],
    ['strict', 'grep', paths('src'), [], 'allow', 'no rule for grep: allowed'],
    ['strict', 'plan_get', none, [], 'allow', 'no rule for plan_get: allowed'],
    ['strict', 'goal_get', none, [], 'allow', 'no rule for goal_get: allowed'],
    ['strict', 'read', paths('a.ts'), [rule('read', 'ask', '*.env')], 'allow', 'no rule for read: allowed'],
    ['strict', 'read', paths('.env'), [rule('read', 'ask', '*.env')], 'ask', 'rule read "*.env" → ask'],
    ['strict', 'goal_request_input', none, [], 'allow', 'goal_request_input asks you itself: not an approval surface'],
    [
      'standard',
      'goal_request_input',
      none,
      [rule('*', 'ask')],
      'allow',
      'goal_request_input asks you itself: not an approval surface',
    ],
    [
      'strict',
      'goal_request_input',
      none,
      [rule('goal_request_input', 'deny')],
      'deny',
      'rule goal_request_input → deny',
    ],
    [
      'allow_all',
      'shell',
      cmd('ls'),
      [rule('shell', 'ask')],
      'allow',
      'allow_all mode: nothing asks (rule shell → ask)',
    ],
    ['allow_all', 'shell', cmd('ls'), [], 'allow', 'allow_all mode: nothing asks'],
    ['allow_all', 'shell', cmd('ls'), [rule('shell', 'deny')], 'deny', 'rule shell → deny'],
    ['allow_all', 'write', paths('a.ts'), [rule('edit', 'deny', '*')], 'deny', 'rule edit "*" → deny'],
    ['allow_all', 'mcp_browser', none, [], 'allow', 'allow_all mode: nothing asks'],
  ])('%s: %s %j with %j → %s', (mode, tool, subject, rules, action, reason) => {
    const d = decide(mode, rules, tool, subject);
    expect(d.action).toBe(action);
    expect(d.reason).toBe(reason);
  });

  it('bg: reads never ask in strict mode, cancel does (the per-call effect)', () => {
    expect(
      decide('strict', [], 'bg', none, { effect: callEffect('bg', { action: 'wait', taskID: 'bg_1' }) }).action,
    ).toBe('allow');
    expect(
      decide('strict', [], 'bg', none, { effect: callEffect('bg', { action: 'cancel', taskID: 'bg_1' }) }).action,
    ).toBe('ask');
  });

  it('Delegating is treated like SideEffecting in strict mode', () => {
    const d = decide('strict', [], 'shell', cmd('x'), { effect: 'Delegating' });
    expect(d).toMatchObject({
      action: 'ask',
      reason: 'strict mode: shell delegates work (each child call is checked again)',
    });
  });
});

describe('tools Zuno does not declare: SideEffecting, fail closed (TD2)', () => {
  it.each<[PermissionMode, PermissionRule[], PermissionAction, string]>([
    ['standard', [], 'ask', 'mcp_browser is not a declared tool: it asks (fail closed)'],
    ['standard', [rule('mcp_browser', 'allow')], 'allow', 'rule mcp_browser → allow'],
    ['standard', [rule('*', 'allow')], 'allow', 'rule * → allow'],
    [
      'strict',
      [rule('*', 'allow')],
      'ask',
      'strict mode: mcp_browser is not a declared tool, so it counts as changing things',
    ],
    ['strict', [rule('*', 'deny')], 'deny', 'rule * → deny'],
  ])('%s with %j → %s', (mode, rules, action, reason) => {
    // The caller's effect is not trusted for an undeclared tool.
    const d = decide(mode, rules, 'mcp_browser', none, { effect: 'ReadOnly' });
    expect(d).toMatchObject({ action, reason });
  });
  it('callEffect: an undeclared tool, or arguments bg cannot read, is SideEffecting', () => {
    expect(callEffect('mcp_browser', {})).toBe('SideEffecting');
    expect(callEffect('bg', undefined)).toBe('SideEffecting');
    expect(callEffect('read', { path: 'a' })).toBe('ReadOnly');
  });
});

describe('session grants: same tool + pattern only, never over a deny', () => {
  const grant = (tool: string, pattern: string): SessionGrant => ({ tool, pattern });
  it.each<[string, PermissionMode, PermissionRule[], string, CallSubject, SessionGrant[], PermissionAction]>([
    [
      'strict: the granted command stops asking',
      'strict',
      [],
      'shell',
      cmd('npm test'),
      [grant('shell', 'npm test')],
      'allow',
    ],
    [
      'strict: another command still asks',
      'strict',
      [],
      'shell',
      cmd('npm test -- x'),
      [grant('shell', 'npm test')],
      'ask',
    ],
    [
      'strict: the same pattern for another tool does not apply',
      'strict',
      [],
      'write',
      paths('npm test'),
      [grant('apply_patch', 'npm test')],
      'ask',
    ],
    ['strict: a group name is not a grant tool', 'strict', [], 'write', paths('a.ts'), [grant('edit', 'a.ts')], 'ask'],
    [
      'standard: a grant answers an ask rule',
      'standard',
      [rule('shell', 'ask')],
      'shell',
      cmd('make'),
      [grant('shell', 'make')],
      'allow',
    ],
    [
      'a grant never overrides a deny',
      'standard',
      [rule('shell', 'deny', 'rm*')],
      'shell',
      cmd('rm x'),
      [grant('shell', 'rm x')],
      'deny',
    ],
    [
      'a wildcard grant covers what it matches',
      'strict',
      [],
      'shell',
      cmd('git push origin'),
      [grant('shell', 'git push*')],
      'allow',
    ],
    [
      'a pipeline needs every asking stage granted',
      'strict',
      [],
      'shell',
      cmd('npm test', 'tee log'),
      [grant('shell', 'npm test')],
      'ask',
    ],
    ['a subject-less call: the empty pattern', 'strict', [], 'plan_update', none, [grant('plan_update', '')], 'allow'],
    ['an undeclared tool can be granted', 'standard', [], 'mcp_browser', none, [grant('mcp_browser', '')], 'allow'],
  ])('%s', (_name, mode, rules, tool, subject, grants, action) => {
    expect(decide(mode, rules, tool, subject, { grants }).action).toBe(action);
  });

  it('a grant made from a decision stops exactly that ask', () => {
    const first = decide('strict', [], 'shell', cmd('ls *.ts', 'wc -l'));
    expect(first.action).toBe('ask');
    const grants = first.grantPatterns!.map((pattern) => ({ tool: 'shell', pattern }));
    const again = decide('strict', [], 'shell', cmd('ls *.ts', 'wc -l'), { grants });
    expect(again).toMatchObject({ action: 'allow', reason: 'approved for this session (shell "ls \\\\*.ts")' });
    expect(decide('strict', [], 'shell', cmd('ls a.ts'), { grants }).action).toBe('ask');
  });

  it('the prompt text of a subject-less call is the tool name', () => {
    expect(decide('strict', [], 'todo_update', none)).toMatchObject({ subjectText: 'todo_update', grantPattern: '' });
  });
});
