/**
 * `web_search` in a session (issue 31 item 3; NW2, NW4, NW5): a scripted
 * model on the real local provider, a real Temporal server and worker, the
 * fake SearXNG on loopback allowed by the session's `network.allow_private`.
 * Configured, the tool is offered, runs without an approval and its result
 * is recorded; the key reaches the backend and no stored event, row or part.
 * Unconfigured, it is not offered and a forced call is blocked
 * `unavailable` saying how to configure it. A Council reviewer's catalog
 * never has it, configured or not.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { NetworkSessionConfig } from '../../core/network.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { startFakeSearxng, type FakeSearxng } from './searxng-fake.js';

const KEY_ENV = 'ZUNO_TEST_WEB_SEARCH_SESSION_KEY';
const KEY = 'sk-session-7d2b41-secret';
let h: Harness;
let fake: FakeSearxng;
let network: NetworkSessionConfig;

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  fake = await startFakeSearxng(
    {
      'zuno release': { results: [{ url: 'https://releases.example/zuno/v2', title: 'Zuno v2', content: 'out now' }] },
      'zuno changelog': {
        results: [
          { url: 'https://releases.example/zuno/v2#notes', title: 'Zuno v2 notes' },
          { url: 'https://docs.example/changelog', title: 'Changelog' },
        ],
      },
    },
    { hold: false },
  );
  network = {
    allowPrivate: ['127.0.0.1'],
    search: { kind: 'searxng', url: fake.url, keyEnv: KEY_ENV, ratePerMinute: 600, concurrency: 2 },
  };
  process.env[KEY_ENV] = KEY;
});
afterAll(async () => {
  delete process.env[KEY_ENV];
  await fake?.close();
  await h?.close();
});

function offered(request: unknown): string[] {
  return ((request as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);
}

const searching = {
  replies: [
    { toolCalls: [{ name: 'web_search', arguments: { queries: ['zuno release', 'zuno changelog'] } }] },
    { text: 'Zuno v2 is out.' },
  ],
};

describe('web_search in a session', () => {
  it('configured: offered, run without an ask, recorded; the key is in no stored record', async () => {
    const run = await h.runSession({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-web-search-')),
      prompt: 'is zuno v2 out?',
      network,
      // NW5: strict mode asks for what changes things; a ReadOnly, Safe web tool is not asked for.
      permission: { mode: 'strict', rules: [] },
      script: searching,
    });
    expect(run.result.status).toBe('completed');
    expect(offered(run.providerRequests[0])).toContain('web_search');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([['web_search', 'ok']]);
    expect(t.toolCalls[0]!.output).toContain('## 1. zuno release\n1. Zuno v2\n   https://releases.example/zuno/v2');
    expect(t.toolCalls[0]!.output).toContain('## 2. zuno changelog\n1. Changelog\n   https://docs.example/changelog');
    expect(fake.requests.map((r) => r.authorization)).toEqual([`Bearer ${KEY}`, `Bearer ${KEY}`]);
    const events = await h.store.listEvents(run.sessionId, 0, 2000);
    expect(events.some((e) => e.type === 'tool.completed')).toBe(true);
    expect(events.some((e) => e.type.startsWith('approval.'))).toBe(false);
    const stored = JSON.stringify({ events, t });
    expect(stored).not.toContain(KEY);
    expect(stored).not.toMatch(/Bearer|format=json/);
  }, 90_000);

  it('unconfigured: not offered, and a forced call is blocked saying how to configure it', async () => {
    const before = fake.requests.length;
    const run = await h.runSession({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-web-search-off-')),
      prompt: 'is zuno v2 out?',
      script: searching,
    });
    expect(run.result.status).toBe('completed');
    expect(offered(run.providerRequests[0])).not.toContain('web_search');
    expect(offered(run.providerRequests[0])).toContain('read');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome, c.blockedCategory])).toEqual([
      ['web_search', 'blocked', 'unavailable'],
    ]);
    expect(t.toolCalls[0]!.output).toMatch(/no search backend is configured.*`network\.search` in zuno\.json/);
    expect(t.toolCalls[0]!.output).toContain('docs/web.md');
    expect(fake.requests.length).toBe(before);
  }, 90_000);

  it("a Council reviewer's catalog has no web_search even when the session has a backend", async () => {
    const before = fake.requests.length;
    const run = await h.runSession({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-web-search-seat-')),
      prompt: 'review',
      agent: 'security-review',
      tools: ['read', 'glob', 'grep', 'tool_search'],
      network,
      script: searching,
    });
    expect(run.result.status).toBe('completed');
    expect(offered(run.providerRequests[0])).toEqual(['read', 'glob', 'grep']);
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([['web_search', 'blocked']]);
    expect(t.toolCalls[0]!.output).toContain('Tool "web_search" is not available. Available tools: glob, grep, read.');
    expect(fake.requests.length).toBe(before);
  }, 90_000);
});
