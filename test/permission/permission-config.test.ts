import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadPermissionPolicy } from '../../client/zuno-config.js';

/** Writes `zuno.json` with `config` into a fresh directory and loads its permission policy. */
function load(config: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-perm-cfg-'));
  writeFileSync(join(dir, 'zuno.json'), typeof config === 'string' ? config : JSON.stringify(config));
  return loadPermissionPolicy(dir);
}

/** The `config_invalid` message of a failing load, without the file name. */
function errorOf(config: unknown): string {
  try {
    load(config);
  } catch (err) {
    expect((err as { code: string }).code).toBe('config_invalid');
    return (err as Error).message.replace(/^.*zuno\.json: /, '');
  }
  throw new Error('expected a config error');
}

describe('zuno.json permission', () => {
  it('absent: standard mode, no rules', () => {
    expect(load({})).toEqual({ mode: 'standard', rules: [] });
    expect(load({ permission: {} })).toEqual({ mode: 'standard', rules: [] });
    expect(loadPermissionPolicy(mkdtempSync(join(tmpdir(), 'zuno-perm-none-')))).toEqual({
      mode: 'standard',
      rules: [],
    });
  });

  it('the object form: key order is rule order, an action or { pattern: action }', () => {
    const text =
      '{"permission": {"mode": "strict", "rules": {"read": "allow", "edit": "ask", "shell": {"*": "ask", "git *": "allow", "git push*": "deny"}, "*": "deny"}}}';
    expect(load(text)).toEqual({
      mode: 'strict',
      rules: [
        { tool: 'read', action: 'allow' },
        { tool: 'edit', action: 'ask' },
        { tool: 'shell', pattern: '*', action: 'ask' },
        { tool: 'shell', pattern: 'git *', action: 'allow' },
        { tool: 'shell', pattern: 'git push*', action: 'deny' },
        { tool: '*', action: 'deny' },
      ],
    });
  });

  it('the array form: a tool may come back later', () => {
    expect(
      load({
        permission: {
          mode: 'allow_all',
          rules: [
            { tool: 'shell', pattern: '*', action: 'ask' },
            { tool: 'edit', action: 'deny' },
            { tool: 'shell', pattern: '2024', action: 'allow' },
          ],
        },
      }),
    ).toEqual({
      mode: 'allow_all',
      rules: [
        { tool: 'shell', pattern: '*', action: 'ask' },
        { tool: 'edit', action: 'deny' },
        { tool: 'shell', pattern: '2024', action: 'allow' },
      ],
    });
  });

  it.each<[string, unknown, string]>([
    ['unknown key', { permission: { mode: 'strict', rule: {} } }, 'permission.rule: unknown key'],
    [
      'bad mode',
      { permission: { mode: 'lax' } },
      'permission.mode: Invalid option: expected one of "standard"|"strict"|"allow_all"',
    ],
    [
      'bad whole-tool action',
      { permission: { rules: { shell: 'alow' } } },
      'permission.rules.shell: expected "allow", "ask", "deny" or an object of pattern → action',
    ],
    [
      'bad pattern action',
      { permission: { rules: { shell: { 'rm *': 'block' } } } },
      'permission.rules.shell.rm *: Invalid option: expected one of "allow"|"ask"|"deny"',
    ],
    [
      'unknown tool name',
      { permission: { rules: { shel: 'ask' } } },
      'permission.rules.shel: unknown tool "shel": rules name a tool (',
    ],
    [
      'unknown tool, array form',
      { permission: { rules: [{ tool: 'browser', action: 'deny' }] } },
      'permission.rules.0.tool: unknown tool "browser"',
    ],
    [
      'bad action, array form',
      { permission: { rules: [{ tool: 'read', action: 'maybe' }] } },
      'permission.rules.0.action: Invalid option',
    ],
    [
      'unknown key, array form',
      { permission: { rules: [{ tool: 'read', action: 'ask', patern: 'x' }] } },
      'permission.rules.0.patern: unknown key',
    ],
    [
      'empty pattern',
      { permission: { rules: { read: { '': 'deny' } } } },
      'permission.rules.read.: an empty pattern; use "*" for every subject',
    ],
    [
      'integer-like pattern key',
      { permission: { rules: { shell: { '*': 'ask', '42': 'allow' } } } },
      'permission.rules.shell.42: a JSON object moves integer-like keys first',
    ],
    [
      'rules of the wrong type',
      { permission: { rules: 'allow' } },
      'permission.rules: expected an object of tool → action',
    ],
  ])('%s is an error naming the key', (_name, config, message) => {
    expect(errorOf(config)).toContain(message);
  });

  it('group keys and * are accepted as tool keys', () => {
    expect(load({ permission: { rules: { edit: 'deny', '*': 'ask' } } }).rules).toHaveLength(2);
  });
});
