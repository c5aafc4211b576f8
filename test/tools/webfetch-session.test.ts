/**
 * `webfetch` end to end in a session (issue 31 item 2): a scripted model
 * calls it twice in one step against a real loopback server the session's
 * `network.allow_private` admits; a permission rule allows the docs URL by
 * pattern and denies the other, so one call runs as a `tool_webfetch`
 * activity (summary without the query) and the model reads the page as
 * Markdown in its next request, while the other is blocked `denied` without
 * reaching the server. The URL's query never reaches the tool's output.
 */
import { mkdtempSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';

const SECRET = 'QSECRET0815';
let h: Harness;
let server: Server;
let base = '';
const hits: string[] = [];

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(new URL(req.url ?? '/', 'http://x').pathname);
    res.writeHead(200, { 'content-type': 'text/html' });
    res.end('<html><body><h1>Release 2.0.0</h1><p>Published <em>today</em>.</p></body></html>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await h?.close();
  await new Promise((r) => server.close(r));
});

describe('webfetch in a session', () => {
  it('runs as a tool activity under URL-pattern rules and the model reads the page as Markdown', async () => {
    const run = await h.runSession({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-webfetch-ses-')),
      prompt: 'is 2.0.0 out?',
      network: { allowPrivate: ['127.0.0.1'] },
      permission: {
        mode: 'strict',
        rules: [
          { tool: 'webfetch', pattern: `${base}/*`, action: 'allow' },
          { tool: 'webfetch', pattern: `${base}/admin/*`, action: 'deny' },
        ],
      },
      script: {
        replies: [
          {
            toolCalls: [
              { name: 'webfetch', arguments: { url: `${base}/releases?token=${SECRET}` } },
              { name: 'webfetch', arguments: { url: `${base}/admin/keys` } },
            ],
          },
          { text: 'yes' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    expect(hits).toEqual(['/releases']);
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome, c.blockedCategory ?? null])).toEqual([
      ['webfetch', 'ok', null],
      ['webfetch', 'blocked', 'denied'],
    ]);
    const second = run.providerRequests[1] as { messages: { role: string; content?: string }[] };
    const [page, denied] = second.messages.filter((m) => m.role === 'tool').map((m) => m.content ?? '');
    expect(page).toContain(`${base}/releases: HTTP 200, text/html`);
    expect(page).toContain('# Release 2.0.0\n\nPublished _today_.');
    expect(page).not.toContain(SECRET);
    expect(denied).toContain(`rule webfetch "${base}/admin/*" → deny`);

    const history = await h.client.workflow.getHandle(run.workflowId).fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tool_webfetch',
    );
    expect(scheduled).toHaveLength(1);
    expect(scheduled[0]!.userMetadata?.summary?.data?.toString()).toContain(`webfetch: ${base}/releases`);
    expect(scheduled[0]!.userMetadata?.summary?.data?.toString()).not.toContain(SECRET);
  }, 120_000);
});
