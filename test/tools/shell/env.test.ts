import { describe, expect, it } from 'vitest';
import { isZunoPrivate, shellEnv } from '../../../activities/tools/shell/index.js';
import { body, sh, workspace } from './helpers.js';

function parseEnv(text: string): Map<string, string> {
  const m = new Map<string, string>();
  for (const entry of text.split('\n')) {
    const eq = entry.indexOf('=');
    if (eq > 0) m.set(entry.slice(0, eq), entry.slice(eq + 1));
  }
  return m;
}

describe('shell environment (SH6)', () => {
  it('strips ZUNO_* in any case, keeps ZUNO, AGENT, *_API_KEY and *_TOKEN', async () => {
    const host = {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ZUNO_CONFIG_CONTENT: '{"provider":{"x":{"options":{"apiKey":"sk-secret"}}}}',
      ZUNO_PID: String(process.pid),
      ZUNO_: 'empty-suffix',
      zuno_server_password: 'lower',
      Zuno_Pid: 'mixed',
      ZUNO: '1',
      AGENT: 'zuno',
      OPENAI_API_KEY: 'sk-openai',
      GITHUB_TOKEN: 'ghp-token',
      XZUNO_KEEP: 'not-in-namespace',
    };
    const o = await sh(workspace(), 'env', {}, { env: host });
    const seen = parseEnv(body(o));
    for (const name of ['ZUNO_CONFIG_CONTENT', 'ZUNO_PID', 'ZUNO_', 'zuno_server_password', 'Zuno_Pid']) {
      expect(seen.has(name), name).toBe(false);
    }
    expect(seen.get('ZUNO')).toBe('1');
    expect(seen.get('AGENT')).toBe('zuno');
    expect(seen.get('OPENAI_API_KEY')).toBe('sk-openai');
    expect(seen.get('GITHUB_TOKEN')).toBe('ghp-token');
    expect(seen.get('XZUNO_KEEP')).toBe('not-in-namespace');
    expect(body(o)).not.toContain('sk-secret');
  });

  it('the host hook runs after stripping and is the only way to put a value back', async () => {
    const host = { PATH: process.env.PATH ?? '/usr/bin:/bin', ZUNO_DB: 'secret.db' };
    const o = await sh(
      workspace(),
      'echo "db=${ZUNO_DB-unset} extra=$EXTRA"',
      {},
      {
        env: host,
        envHook: (env) => {
          expect(env.ZUNO_DB).toBeUndefined();
          return { ...env, EXTRA: 'yes' };
        },
      },
    );
    expect(body(o)).toBe('db=unset extra=yes\n');
  });

  it('ZUNO_HOST_ID is the one Zuno variable put back: the host the call runs on, not the worker env value', async () => {
    const host = { PATH: process.env.PATH ?? '/usr/bin:/bin', ZUNO_HOST_ID: 'from-worker-env', ZUNO_DB: 'x' };
    const o = await sh(
      workspace(),
      'echo "host=${ZUNO_HOST_ID-unset} db=${ZUNO_DB-unset}"',
      {},
      { env: host, hostId: 'host-a' },
    );
    expect(body(o)).toBe('host=host-a db=unset\n');
    // Without a host id (no session route) nothing is put back.
    const bare = await sh(workspace(), 'echo "host=${ZUNO_HOST_ID-unset}"', {}, { env: host });
    expect(body(bare)).toBe('host=unset\n');
    expect(shellEnv({ ZUNO_HOST_ID: 'x', B: '2' }, undefined, 'h')).toEqual({ B: '2', ZUNO_HOST_ID: 'h' });
  });

  it('isZunoPrivate / shellEnv are a namespace rule, not a list', () => {
    expect(isZunoPrivate('ZUNO_ANYTHING_NEW')).toBe(true);
    expect(isZunoPrivate('zUnO_x')).toBe(true);
    expect(isZunoPrivate('ZUNO')).toBe(false);
    expect(isZunoPrivate('AGENT')).toBe(false);
    expect(isZunoPrivate('MY_ZUNO_X')).toBe(false);
    expect(shellEnv({ ZUNO_A: '1', B: '2', C: undefined })).toEqual({ B: '2' });
  });
});
