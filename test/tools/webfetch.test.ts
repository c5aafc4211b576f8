/**
 * `webfetch` (issue 31 item 2; NW1, NW3, NW5, NW6 decided in docs/web.md)
 * against a real HTTP server on 127.0.0.1, reachable only because the
 * session's `network.allow_private` lists it: HTML as Markdown and as text,
 * JSON pretty-printed, a binary type kept as an artifact, an over-cap page
 * withheld and read back with `bg artifact` (the model's route), redirects, a
 * 404, the byte and time caps, cancellation — and the same server refused
 * without the allowlist, before a byte reaches it. No URL query appears in
 * any output, error or data field. Every call goes through the registry's
 * wrapper, as the `tool_webfetch` activity runs it.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toolImplementations } from '../../activities/tools/index.js';
import type { ToolContext } from '../../activities/tools/context.js';
import type { ToolResult } from '../../core/tools/types.js';
import { AGENT_ROLES, catalogFor } from '../../core/agents.js';
import { declaredTools } from '../../core/tools/registry.js';
import { tempDir } from './helpers.js';

/** Put in every requested URL's query: it must never come back. */
const SECRET = 'QSECRET4711';
const PNG = Buffer.concat([Buffer.from('89504e470d0a1a0a', 'hex'), Buffer.alloc(300, 7), Buffer.from([0, 1, 2])]);
const PAGE = `<!doctype html><html><head><title>Docs</title><style>p{color:red}</style>
<script>window.leak = "script text";</script></head>
<body><h1>Install</h1><p>Run <code>npm i zuno</code> and read the <a href="guide/next.html">next page</a>.<br>Then go on.</p>
<ul><li>fast</li><li>safe</li></ul><img src="/logo.png" alt="logo"><a href="#top">top</a></body></html>`;

const NOT_FOUND = '<html><body><h1>Not Found</h1><p>No such package.</p></body></html>';

let server: Server;
let base = '';
let hits: string[] = [];

function route(path: string, res: import('node:http').ServerResponse): void {
  const send = (status: number, type: string | null, body: string | Buffer) => {
    res.writeHead(status, type ? { 'content-type': type } : {});
    res.end(body);
  };
  if (path === '/page.html') return send(200, 'text/html; charset=utf-8', PAGE);
  if (path === '/data.json') return send(200, 'application/json', '{"name":"zuno","versions":["1.0.0","2.0.0"]}');
  if (path === '/api') return send(200, 'application/vnd.api+json', '{"data":{"id":1}}');
  if (path === '/bad.json') return send(200, 'application/json', '{not json');
  if (path === '/logo.png') return send(200, 'image/png', PNG);
  if (path === '/blob') return send(200, null, Buffer.from([0x00, 0xff, 0x10, 0x80]));
  if (path === '/notes') return send(200, null, 'plain words\n');
  if (path === '/latin1') return send(200, 'text/plain; charset=iso-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]));
  if (path === '/big.html') {
    const rows = Array.from({ length: 3000 }, (_, i) => `<p>paragraph ${i} of the long page</p>`).join('');
    return send(200, 'text/html', `<html><body>${rows}</body></html>`);
  }
  if (path === '/huge') return send(200, 'text/plain', Buffer.alloc(4096, 'x'));
  if (path === '/hop1') {
    res.writeHead(302, { location: `/hop2?token=${SECRET}` });
    return void res.end();
  }
  if (path === '/hop2') {
    res.writeHead(301, { location: `${base}/page.html?again=${SECRET}` });
    return void res.end();
  }
  if (path === '/silent') return; // never answers: the call's signal or time limit ends it
  send(404, 'text/html', NOT_FOUND);
}

beforeAll(async () => {
  server = createServer((req, res) => {
    hits.push(req.url ?? '');
    route(new URL(req.url ?? '/', 'http://x').pathname, res);
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});
afterAll(() => {
  server.closeAllConnections();
  return new Promise((r) => server.close(r));
});

function ctx(workspace: string, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    workspace,
    sessionId: 'ses_webfetch',
    rowId: 'tc_1_0_0',
    callId: `call_${Math.random().toString(36).slice(2)}`,
    network: { allowPrivate: ['127.0.0.1'] },
    ...extra,
  };
}

/** Runs one webfetch call through the registry wrapper; the secret query must not appear anywhere in the result. */
async function fetchTool(args: Record<string, unknown>, c: ToolContext = ctx(tempDir())): Promise<ToolResult> {
  const r = await toolImplementations.webfetch!.run(args, c);
  expect(JSON.stringify(r)).not.toContain(SECRET);
  return r;
}

/** The rendered body: the output after its header line and blank line. */
function bodyOf(r: ToolResult): string {
  return r.output.slice(r.output.indexOf('\n\n') + 2);
}

describe('webfetch declaration', () => {
  it('is ReadOnly, Safe, ParallelSafe, never local; offered to build, plan, explore and deep, not to the reviewers', () => {
    const d = declaredTools.webfetch;
    expect([d.effect, d.replay, d.concurrency, d.runsLocally]).toEqual(['ReadOnly', 'Safe', 'ParallelSafe', undefined]);
    const all = Object.keys(declaredTools);
    const has = (role: string) => catalogFor(AGENT_ROLES[role]!, all, undefined, true).includes('webfetch');
    expect(['build', 'plan', 'explore', 'deep'].filter(has)).toEqual(['build', 'plan', 'explore', 'deep']);
    expect(['correctness-review', 'security-review', 'tests-review'].filter(has)).toEqual([]);
  });
});

describe('webfetch renders by content type', () => {
  it('turns an HTML page into Markdown: headings, absolute links, no script or style, the query kept out', async () => {
    const r = await fetchTool({ url: `${base}/page.html?key=${SECRET}` });
    expect(r.isError).toBe(false);
    expect(r.output.split('\n')[0]).toBe(`${base}/page.html: HTTP 200, text/html, ${Buffer.byteLength(PAGE)} bytes`);
    const md = bodyOf(r);
    expect(md).toContain('# Install');
    expect(md).toContain('[next page](' + `${base}/guide/next.html)`);
    expect(md).toContain(`![logo](${base}/logo.png)`);
    expect(md).toContain(`[top](${base}/page.html#top)`);
    expect(md).toContain('`npm i zuno`');
    expect(md).toMatch(/- {1,3}fast/);
    expect(md).not.toContain('script text');
    expect(md).not.toContain('color:red');
    expect(r.data).toMatchObject({
      url: `${base}/page.html`,
      status: 200,
      contentType: 'text/html; charset=utf-8',
      bytes: Buffer.byteLength(PAGE),
      redirects: 0,
      format: 'markdown',
    });
    expect(typeof r.data!.elapsedMs).toBe('number');
  });

  it('format text strips the markup and collapses whitespace; raw returns the HTML', async () => {
    const text = bodyOf(await fetchTool({ url: `${base}/page.html`, format: 'text' }));
    expect(text).toContain('Install\n\nRun npm i zuno and read the next page.\nThen go on.');
    expect(text).toContain('- fast\n- safe');
    expect(text).not.toMatch(/[<>#*[\]]/);
    expect(text).not.toContain('script text');
    expect(text).not.toMatch(/\n{3,}/);
    const raw = await fetchTool({ url: `${base}/page.html`, format: 'raw' });
    expect(bodyOf(raw)).toBe(PAGE);
  });

  it('pretty-prints JSON (and +json types); raw keeps it as sent; invalid JSON comes back as is', async () => {
    const r = await fetchTool({ url: `${base}/data.json?key=${SECRET}` });
    expect(bodyOf(r)).toBe(JSON.stringify({ name: 'zuno', versions: ['1.0.0', '2.0.0'] }, null, 2));
    expect(bodyOf(await fetchTool({ url: `${base}/api` }))).toBe('{\n  "data": {\n    "id": 1\n  }\n}');
    expect(bodyOf(await fetchTool({ url: `${base}/data.json`, format: 'raw' }))).toBe(
      '{"name":"zuno","versions":["1.0.0","2.0.0"]}',
    );
    expect(bodyOf(await fetchTool({ url: `${base}/bad.json` }))).toBe('{not json');
  });

  it('decodes text by its charset, and sniffs a body sent without a content type', async () => {
    expect(bodyOf(await fetchTool({ url: `${base}/latin1` }))).toBe('café');
    const notes = await fetchTool({ url: `${base}/notes` });
    expect(notes.output).toBe(`${base}/notes: HTTP 200, text/plain, 12 bytes\n\nplain words\n`);
    const blob = await fetchTool({ url: `${base}/blob` });
    expect(blob.output).toContain('application/octet-stream, 4 bytes');
    expect(blob.output).toContain('Binary content, not decoded');
  });

  it('keeps a binary body as an artifact, described by type, size and SHA-256, readable with bg artifact', async () => {
    const ws = tempDir();
    const r = await fetchTool({ url: `${base}/logo.png?key=${SECRET}` }, ctx(ws));
    expect(r.isError).toBe(false);
    const sha = createHash('sha256').update(PNG).digest('hex');
    const path = r.data!.artifactPath as string;
    expect(r.data).toMatchObject({ contentType: 'image/png', bytes: PNG.length, sha256: sha });
    expect(path.startsWith(`${ws}/.zuno/artifacts/webfetch-`)).toBe(true);
    expect(path.endsWith('.png')).toBe(true);
    expect(r.output).toContain(`image/png, ${PNG.length} bytes`);
    expect(r.output).toContain(sha);
    expect(r.output).not.toContain('\uFFFD');
    expect(readFileSync(path).equals(PNG)).toBe(true);
    const back = await toolImplementations.bg!.run({ action: 'artifact', outputPath: path }, ctx(ws));
    expect(back.isError).toBe(false);
    expect(back.data).toMatchObject({ totalWritten: PNG.length });
  });
});

describe('webfetch output through the TD9 caps', () => {
  it('withholds an over-cap page whole to an artifact, read back byte for byte with bg artifact', async () => {
    const ws = tempDir();
    const r = await fetchTool({ url: `${base}/big.html?key=${SECRET}` }, ctx(ws));
    expect(r.isError).toBe(false);
    const withheld = r.data!.withheldOutput as { artifactPath: string; bytes: number; cap: string };
    expect(withheld.cap).toBe('max_bytes');
    expect(r.output).toMatch(/^Output withheld: \d+ bytes in \d+ lines exceeds tool_output.max_bytes/);
    expect(r.output).toContain(`bg {"action": "artifact", "outputPath": ${JSON.stringify(withheld.artifactPath)}}`);
    expect(r.output).toContain(`read {"path":${JSON.stringify(withheld.artifactPath)},"offset":1,"limit":2000}`);
    expect(r.data).toMatchObject({ url: `${base}/big.html`, status: 200 });

    const pages: string[] = [];
    let cursor = 0;
    for (;;) {
      const w = await toolImplementations.bg!.run(
        { action: 'artifact', outputPath: withheld.artifactPath, cursor, limit: 51_200 },
        ctx(ws),
      );
      expect(w.isError).toBe(false);
      pages.push(w.output.slice(w.output.indexOf('\n\n') + 2));
      const d = w.data as { nextCursor: number; hasMore: boolean };
      cursor = d.nextCursor;
      if (!d.hasMore) break;
    }
    const text = pages.join('');
    expect(Buffer.byteLength(text)).toBe(withheld.bytes);
    expect(text.startsWith(`${base}/big.html: HTTP 200, text/html`)).toBe(true);
    expect(text).toContain('paragraph 0 of the long page\n\nparagraph 1 of the long page');
    expect(text.trimEnd().endsWith('paragraph 2999 of the long page')).toBe(true);
    expect(text).not.toContain(SECRET);

    // The route for a role without bg: read, windowed by lines.
    const viaRead = await toolImplementations.read!.run({ path: withheld.artifactPath, offset: 1, limit: 3 }, ctx(ws));
    expect(viaRead.isError).toBe(false);
    expect(viaRead.output).toContain('paragraph 0 of the long page');
  });
});

describe('webfetch redirects, statuses and failures', () => {
  it('follows redirects and reports the final URL without its query', async () => {
    const r = await fetchTool({ url: `${base}/hop1?key=${SECRET}` });
    expect(r.isError).toBe(false);
    expect(r.output.split('\n')[0]).toBe(
      `${base}/page.html: HTTP 200, text/html, ${Buffer.byteLength(PAGE)} bytes, after 2 redirects`,
    );
    expect(r.data).toMatchObject({ url: `${base}/page.html`, redirects: 2, status: 200 });
  });

  it('a redirect hop meets the session permission rules: a hop they deny or ask about is not followed', async () => {
    const policy = (action: 'deny' | 'ask') => ({
      mode: 'standard' as const,
      rules: [{ tool: 'webfetch', pattern: `${base}/page.html`, action }],
    });
    for (const action of ['deny', 'ask'] as const) {
      hits = [];
      const r = await fetchTool({ url: `${base}/hop2` }, ctx(tempDir(), { permission: policy(action) }));
      expect(r).toMatchObject({ isError: true, errorCode: 'network_redirect_refused' });
      expect(r.output).toContain(`the permission rules ${action === 'deny' ? 'deny' : 'ask before'} fetching it`);
      expect(hits).toEqual(['/hop2']); // the refused hop was never requested
    }
    // Allowed hops are followed as before.
    const ok = await fetchTool({ url: `${base}/hop1` }, ctx(tempDir(), { permission: { mode: 'strict', rules: [] } }));
    expect(ok.isError).toBe(false);
  });

  it('a 404 is a network_http_status error that still shows the page the server sent', async () => {
    const r = await fetchTool({ url: `${base}/missing?key=${SECRET}` });
    expect(r).toMatchObject({ isError: true, errorCode: 'network_http_status' });
    expect(r.output).toBe(
      `${base}/missing: HTTP 404, text/html, ${NOT_FOUND.length} bytes\n\n# Not Found\n\nNo such package.`,
    );
    expect(r.data).toMatchObject({ status: 404, url: `${base}/missing` });
  });

  it('refuses the same server without the allowlist, in phase url, naming the class, before a byte is sent', async () => {
    hits = [];
    const r = await fetchTool({ url: `${base}/page.html?key=${SECRET}` }, ctx(tempDir(), { network: undefined }));
    expect(r).toMatchObject({ isError: true, errorCode: 'network_refused' });
    expect(r.data).toMatchObject({ url: `${base}/page.html`, phase: 'url', addressClass: 'loopback' });
    expect(r.output).toMatch(/^webfetch failed in phase url, address class loopback, after \d+ ms: /);
    expect(hits).toEqual([]);
    const other = await fetchTool(
      { url: `${base}/page.html` },
      ctx(tempDir(), { network: { allowPrivate: ['10.0.0.0/8'] } }),
    );
    expect(other.errorCode).toBe('network_refused');
    expect(hits).toEqual([]);
  });

  it('a body past max_bytes fails in phase read; a server that never answers fails at the timeout', async () => {
    const big = await fetchTool({ url: `${base}/huge?key=${SECRET}`, max_bytes: 1000 });
    expect(big).toMatchObject({ isError: true, errorCode: 'network_response_too_large' });
    expect(big.data).toMatchObject({ phase: 'read', url: `${base}/huge` });
    const slow = await fetchTool({ url: `${base}/silent?key=${SECRET}`, timeout: 1 });
    expect(slow).toMatchObject({ isError: true, errorCode: 'network_timeout' });
    expect(slow.data).toMatchObject({ phase: 'connect', url: `${base}/silent` });
  });

  it('the call signal cancels a request in flight (TD10)', async () => {
    hits = [];
    const abort = new AbortController();
    const pending = fetchTool({ url: `${base}/silent` }, ctx(tempDir(), { signal: abort.signal }));
    while (!hits.includes('/silent')) await new Promise((r) => setTimeout(r, 10));
    abort.abort();
    expect(await pending).toMatchObject({ isError: true, errorCode: 'cancelled' });
  });

  it('arguments are checked: http(s) only, max_bytes and timeout within their documented maxima', async () => {
    for (const bad of [
      { url: 'ftp://example.com/x' },
      { url: 'not a url' },
      { url: `${base}/page.html`, max_bytes: 10 * 1024 * 1024 + 1 },
      { url: `${base}/page.html`, timeout: 121 },
      { url: `${base}/page.html`, format: 'html' },
    ]) {
      expect(await fetchTool(bad)).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
    }
  });
});
