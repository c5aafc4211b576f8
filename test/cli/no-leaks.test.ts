import { randomBytes } from 'node:crypto';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { startLocalProvider, type LocalProvider } from '../../local-provider/server.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';
import { runZuno } from './helpers.js';

const servers: LocalProvider[] = [];
afterAll(async () => {
  for (const s of servers) await s.close();
});

/** Every file under `dir`, as text (binary files too: a key would still show up as its bytes). */
function allText(dir: string): string {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => readFileSync(join(e.parentPath, e.name)).toString('latin1'))
    .join('\n');
}

describe('no credential or full wire URL leaks (PR6)', () => {
  it('a provider that echoes the key back: the key and the URL appear in no event, row, log line, error or history', async () => {
    const key = `sk-leaktest-${randomBytes(12).toString('hex')}`;
    // The server expects another key and, like real providers, echoes the one it got in its 401 body;
    // the second provider answers 503 with the key in its body three times.
    const rejecting = await startLocalProvider({ script: { apiKey: 'the-right-key', replies: [{ text: 'never' }] } });
    const failing = await startLocalProvider({
      script: {
        replies: [{ text: 'never', fault: { status: 503, times: 3, message: `upstream broke for key ${key}` } }],
      },
    });
    servers.push(rejecting, failing);
    const home = mkdtempSync(join(tmpdir(), 'zuno-leak-'));
    const address = inject('temporalAddress');
    writeFileSync(
      join(home, 'zuno.json'),
      JSON.stringify({
        providers: {
          rej: { base_url: rejecting.url, api_key_env: 'LEAK_TEST_KEY' },
          bad: { base_url: failing.url, api_key_env: 'LEAK_TEST_KEY', retry: { initial_delay_ms: 50 } },
        },
      }),
    );
    const env = { TEMPORAL_ADDRESS: address, LEAK_TEST_KEY: key };
    const auth = await runZuno(['run', 'hello', '--model', 'rej/m', '--json'], { home, env });
    const down = await runZuno(['run', 'hello', '--model', 'bad/m'], { home, env });
    // Both really failed on the provider, and the key really went out (the test would be vacuous otherwise).
    expect(auth.code).toBe(1);
    expect(auth.stderr).toContain('provider_auth');
    expect(down.code).toBe(1);
    expect(down.stderr).toContain('provider_unavailable');
    expect(rejecting.requestHeaders[0]!.authorization).toBe(`Bearer ${key}`);
    expect(failing.requestHeaders[0]!.authorization).toBe(`Bearer ${key}`);
    const sessionIds = [...`${auth.stdout}${auth.stderr}${down.stderr}`.matchAll(/ses_[0-9a-z]+/g)].map((m) => m[0]);
    expect(new Set(sessionIds).size).toBe(2);
    const histories = [...new Set(sessionIds)].map((id) =>
      execFileSync(
        TEMPORAL_BIN,
        ['workflow', 'show', '--workflow-id', `session/${id}`, '--address', address, '--output', 'json'],
        { encoding: 'utf8' },
      ),
    );
    const everything = [auth.stdout, auth.stderr, down.stdout, down.stderr, allText(home), ...histories];
    for (const text of everything) expect(text).not.toContain(key);
    // Events, rows, logs and errors name the host only, never the wire URL (the history carries the frozen base URL by design).
    for (const text of everything.slice(0, 5)) {
      expect(text).not.toContain(`${rejecting.url}/chat/completions`);
      expect(text).not.toContain(`${failing.url}/chat/completions`);
    }
  }, 120_000);
});
