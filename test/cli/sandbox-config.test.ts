import { homedir } from 'node:os';
import { join } from 'node:path';
import { errorOf, loadConfig as load } from '../helpers/config.js';
import { describe, expect, it } from 'vitest';
import { sandboxPolicy } from '../../client/sandbox-config.js';
import { DEFAULT_SANDBOX_POLICY } from '../../core/sandbox.js';

describe('zuno.json sandbox (SH10, SB1)', () => {
  it('no sandbox key is the auto default: workspace-write, network allowed, not explicit', () => {
    expect(sandboxPolicy(load({}).sandbox, '/w')).toEqual(DEFAULT_SANDBOX_POLICY);
    expect(sandboxPolicy(load({ sandbox: {} }).sandbox, '/w')).toEqual(DEFAULT_SANDBOX_POLICY);
    expect(sandboxPolicy(load({ sandbox: { network: 'allow' } }).sandbox, '/w').explicit).toBe(false);
  });

  it('any constraint makes the policy explicit (no backend → refused, never unconfined)', () => {
    expect(sandboxPolicy(load({ sandbox: { mode: 'read-only' } }).sandbox, '/w')).toEqual({
      mode: 'read-only',
      network: 'allow',
      writableRoots: [],
      explicit: true,
    });
    expect(sandboxPolicy(load({ sandbox: { network: 'deny' } }).sandbox, '/w')).toMatchObject({
      mode: 'workspace-write',
      network: 'deny',
      explicit: true,
    });
    expect(sandboxPolicy(load({ sandbox: { backend: 'auto' } }).sandbox, '/w').explicit).toBe(true);
  });

  it('danger-full-access and backend native are native execution (trusted_native)', () => {
    expect(sandboxPolicy(load({ sandbox: { mode: 'danger-full-access' } }).sandbox, '/w')).toMatchObject({
      mode: 'danger-full-access',
      explicit: false,
    });
    expect(sandboxPolicy(load({ sandbox: { backend: 'native' } }).sandbox, '/w').mode).toBe('danger-full-access');
  });

  it('writable roots: absolute, ~/ and workspace-relative, deduplicated', () => {
    const cfg = load({ sandbox: { mode: 'workspace-write', writable_roots: ['/data', '~/.npm', 'out', '/data'] } });
    expect(sandboxPolicy(cfg.sandbox, '/w').writableRoots).toEqual(['/data', join(homedir(), '.npm'), '/w/out']);
  });

  it('unknown keys and contradictions are named', () => {
    const unknown = errorOf(() => load({ sandbox: { mode: 'read-only', writableRoots: ['/x'] } }));
    expect(unknown.code).toBe('config_invalid');
    expect(unknown.message).toContain('sandbox.writableRoots: unknown key');
    expect(errorOf(() => load({ sandbox: { mode: 'rw' } })).message).toContain('sandbox.mode');
    expect(errorOf(() => load({ sandbox: { backend: 'native', mode: 'read-only' } })).message).toContain(
      'sandbox.mode: backend "native" does not confine',
    );
    expect(errorOf(() => load({ sandbox: { mode: 'danger-full-access', network: 'deny' } })).message).toContain(
      'sandbox.network',
    );
    expect(errorOf(() => load({ sandbox: { mode: 'read-only', writable_roots: ['/x'] } })).message).toContain(
      'sandbox.writable_roots: writable_roots apply only to mode "workspace-write"',
    );
  });
});
