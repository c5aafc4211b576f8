import { describe, expect, it } from 'vitest';
import { sessionNetwork } from '../../client/network-config.js';
import { errorOf, loadConfig as load } from '../helpers/config.js';

/** zuno.json `network` (issue 31; docs/web.md): the private allowlist and the search backend, checked by key. */
describe('zuno.json network', () => {
  it('no network key: nothing private is reachable and no search backend (the session carries nothing)', () => {
    expect(sessionNetwork(load({}))).toBeUndefined();
    expect(sessionNetwork(load({ network: {} }))).toBeUndefined();
  });

  it('resolves the allowlist and the search backend with their defaults', () => {
    const cfg = load({
      network: {
        allow_private: ['10.1.2.0/24', '10.0.0.5', 'ci.internal'],
        search: { backend: 'searxng', url: 'https://search.example', key_env: 'SEARX_KEY' },
      },
    });
    expect(sessionNetwork(cfg)).toEqual({
      allowPrivate: ['10.1.2.0/24', '10.0.0.5', 'ci.internal'],
      search: {
        kind: 'searxng',
        url: 'https://search.example',
        keyEnv: 'SEARX_KEY',
        ratePerMinute: 30,
        concurrency: 2,
      },
    });
  });

  it('a bad value is refused naming its key, never thrown as something else', () => {
    const refused = (cfg: unknown) => {
      const e = errorOf(() => load(cfg as Parameters<typeof load>[0]));
      expect(e.code).toBe('config_invalid');
      return e.message;
    };
    const err = refused({ network: { allow_private: ['10.1.2.0/33'], search: { backend: 'bing', url: 'x' } } });
    expect(err).toContain('network.allow_private.0: "10.1.2.0/33" is not a CIDR like 10.1.2.0/24');
    expect(err).toContain('network.search.backend');
    expect(err).toContain('network.search.url');
    expect(refused({ network: { search: { backend: 'searxng', url: 'https://u:p@s.example/?q=1' } } })).toContain(
      'network.search.url: expected an http(s) base URL without credentials or query',
    );
    expect(
      refused({ network: { search: { backend: 'searxng', url: 'https://s.example', key_env: 'sk-123 abc' } } }),
    ).toContain('network.search.key_env');
    expect(refused({ network: { proxy: 'x' } })).toContain('proxy');
  });
});
