/* eslint-disable @typescript-eslint/no-explicit-any -- ad hoc inspection of JSON wire objects */
/** The local provider server itself: script loading/validation, routes, wire shape, CLI entry. */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse as parseYaml } from 'yaml';
import { ZunoError } from '../../core/errors.js';
import { loadScript, parseScript } from '../../local-provider/script.js';
import { serveScriptCommand } from '../../local-provider/serve.js';
import { splitDeltas, splitPieces, startLocalProvider } from '../../local-provider/server.js';
import { rejectionOf } from './helpers.js';

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'zuno-local-provider-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

async function post(url: string, body: unknown): Promise<Response> {
  return fetch(`${url}/chat/completions`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: typeof body === 'string' ? body : JSON.stringify(body),
  });
}

/** Raw SSE `data:` payloads of a streamed response. */
async function dataLines(res: Response): Promise<string[]> {
  const text = await res.text();
  return text
    .split('\n\n')
    .filter((b) => b.startsWith('data: '))
    .map((b) => b.slice('data: '.length));
}

describe('script files', () => {
  it('loads a valid JSON and a valid YAML script', async () => {
    const json = join(dir, 'ok.json');
    await writeFile(
      json,
      JSON.stringify({ replies: [{ text: 'hi' }, { toolCalls: [{ name: 'read', arguments: { path: 'a' } }] }] }),
    );
    expect((await loadScript(json)).replies).toHaveLength(2);
    const yaml = join(dir, 'ok.yaml');
    await writeFile(
      yaml,
      [
        'model: demo',
        'replies:',
        '  - text: hello',
        '  - toolCalls:',
        '      - name: shell',
        '        arguments: \'{"command": "ls"\'',
        '    fault: { status: 429, retryAfter: "2", times: 2 }',
      ].join('\n'),
    );
    const s = await loadScript(yaml);
    expect(s.model).toBe('demo');
    expect(s.replies[1]!.toolCalls![0]!.arguments).toBe('{"command": "ls"');
    expect(s.replies[1]!.fault).toEqual({ status: 429, retryAfter: '2', times: 2 });
  });

  it('a wrong type fails with script_invalid naming the file and the key path', async () => {
    const file = join(dir, 'bad-type.json');
    await writeFile(file, JSON.stringify({ replies: [{ text: 'ok' }, { toolCalls: [{ name: 42, arguments: {} }] }] }));
    const err = (await rejectionOf(loadScript(file))) as ZunoError;
    expect(err).toBeInstanceOf(ZunoError);
    expect(err.code).toBe('script_invalid');
    expect(err.message).toContain(file);
    expect(err.message).toContain('replies[1].toolCalls[0].name');
    expect(err.details).toMatchObject({ file, reason: 'schema' });
  });

  it('an unknown (misspelt) key is named with its path', async () => {
    const file = join(dir, 'typo.yaml');
    await writeFile(file, 'replies:\n  - text: a\n  - toolcalls: []\n');
    const err = (await rejectionOf(loadScript(file))) as ZunoError;
    expect(err.code).toBe('script_invalid');
    expect(err.message).toContain('replies[1].toolcalls: unknown key');
  });

  it('fault rules: exactly one kind, options only with their kind', () => {
    const err1 = (() => {
      try {
        parseScript({ replies: [{ text: 'a', fault: { status: 500, cutStream: true } }] }, 'inline.json');
      } catch (e) {
        return e as ZunoError;
      }
      throw new Error('should fail');
    })();
    expect(err1.code).toBe('script_invalid');
    expect(err1.message).toContain('replies[0].fault');
    expect(err1.message).toContain('exactly one of');
    expect(() => parseScript({ replies: [{ fault: { cutStream: true, retryAfter: '1' } }] })).toThrow(
      /replies\[0\]\.fault\.retryAfter/,
    );
    expect(() => parseScript({ replies: [{ fault: { status: 600 } }] })).toThrow(/replies\[0\]\.fault\.status/);
    expect(() => parseScript({ replies: [{ chunks: [], text: 'x' }] })).toThrow(
      /replies\[0\]\.text.*cannot be combined/,
    );
    expect(() => parseScript({})).toThrow(/replies/);
  });

  it('syntax errors and missing files are script_invalid naming the file', async () => {
    const file = join(dir, 'broken.json');
    await writeFile(file, '{"replies": [');
    const e1 = (await rejectionOf(loadScript(file))) as ZunoError;
    expect([e1.code, e1.details?.reason]).toEqual(['script_invalid', 'syntax']);
    expect(e1.message).toContain(file);
    const missing = join(dir, 'nope.yaml');
    const e2 = (await rejectionOf(loadScript(missing))) as ZunoError;
    expect([e2.code, e2.details?.reason]).toEqual(['script_invalid', 'unreadable']);
    expect(e2.message).toContain(missing);
  });

  it('the README examples are valid scripts (the worked example and the threads one)', async () => {
    const readme = await readFile(fileURLToPath(new URL('../../local-provider/README.md', import.meta.url)), 'utf8');
    const blocks = [...readme.matchAll(/```yaml\n([\s\S]*?)```/g)].map((m) => m[1]!);
    const scripts = blocks.map((b) => parseScript(parseYaml(b), 'README.md'));
    expect(scripts.some((s) => s.replies.length >= 5)).toBe(true);
    expect(scripts.some((s) => (s.threads?.length ?? 0) > 0)).toBe(true);
  });

  it('startLocalProvider rejects an invalid inline script', async () => {
    const err = (await rejectionOf(startLocalProvider({ script: { replies: [{ text: 1 }] } as never }))) as ZunoError;
    expect(err.code).toBe('script_invalid');
    expect(err.message).toContain('replies[0].text');
  });
});

describe('script rules for the three surfaces and replays', () => {
  it('output items take exactly one kind; capsule only on reasoning; output excludes text/reasoning/toolCalls', () => {
    expect(
      parseScript({ replies: [{ output: [{ reasoning: 'r', capsule: 'c' }, { text: 't' }] }] }).replies,
    ).toHaveLength(1);
    expect(() => parseScript({ replies: [{ output: [{ text: 'a', reasoning: 'b' }] }] })).toThrow(
      /replies\[0\]\.output\[0\]: an output item takes exactly one of/,
    );
    expect(() => parseScript({ replies: [{ output: [{ text: 'a', capsule: 'c' }] }] })).toThrow(
      /replies\[0\]\.output\[0\]\.capsule/,
    );
    expect(() => parseScript({ replies: [{ output: [], text: 'x' }] })).toThrow(/replies\[0\]\.text.*"output"/);
    expect(() => parseScript({ replies: [{ reasoningCapsule: 'c' }] })).toThrow(/replies\[0\]\.reasoningCapsule/);
    expect(() => parseScript({ replies: [{ output: [{ toolcall: {} }] }] })).toThrow(
      /replies\[0\]\.output\[0\]\.toolcall: unknown key/,
    );
  });

  it('chunks files: status only with .json, segment only with .chunks.txt; streamError takes message/code but not retryAfter', () => {
    expect(() => parseScript({ replies: [{ chunks: 'a.chunks.txt', status: 400 }] })).toThrow(/replies\[0\]\.status/);
    expect(() => parseScript({ replies: [{ chunks: 'a.json', segment: 1 }] })).toThrow(/replies\[0\]\.segment/);
    expect(() => parseScript({ replies: [{ text: 'x', status: 200 }] })).toThrow(/replies\[0\]\.status/);
    expect(() => parseScript({ replies: [{ chunks: 'a.chunks.txt', usage: null }] })).toThrow(
      /replies\[0\]\.usage.*cannot be combined with "chunks"/,
    );
    expect(parseScript({ replies: [{ chunks: 'e.json', status: 429 }] }).replies[0]!.status).toBe(429);
    expect(
      parseScript({ replies: [{ text: 'x', fault: { streamError: true, message: 'm', code: 'c', times: 2 } }] })
        .replies[0]!.fault,
    ).toEqual({ streamError: true, message: 'm', code: 'c', times: 2 });
    expect(() => parseScript({ replies: [{ fault: { streamError: true, retryAfter: '1' } }] })).toThrow(
      /replies\[0\]\.fault\.retryAfter/,
    );
  });

  it("a relative chunks path is read from the script file's folder (also when run loads the script first)", async () => {
    const sub = join(dir, 'replay-rel');
    await mkdir(sub, { recursive: true });
    const line = JSON.stringify({
      id: 'c1',
      object: 'chat.completion.chunk',
      choices: [{ index: 0, delta: { content: 'from file' }, finish_reason: 'stop' }],
    });
    await writeFile(join(sub, 'rec.chunks.txt'), `${line}\n\n`);
    const file = join(sub, 'script.yaml');
    await writeFile(file, 'replies:\n  - chunks: rec.chunks.txt\n  - chunks: rec.chunks.txt\n');
    for (const script of [file, await loadScript(file)]) {
      const server = await startLocalProvider({ script });
      try {
        const lines = await dataLines(await post(server.url, { model: 'm', messages: [], stream: true }));
        expect(lines).toEqual([line, '[DONE]']);
      } finally {
        await server.close();
      }
    }
  });

  it('unusable replay files are script_invalid naming the key path (missing file, a line that is not JSON)', async () => {
    const missing = (await rejectionOf(
      startLocalProvider({ script: { replies: [{ text: 'ok' }, { chunks: join(dir, 'nope.chunks.txt') }] } }),
    )) as ZunoError;
    expect(missing.code).toBe('script_invalid');
    expect(missing.message).toContain('replies[1].chunks: cannot read');
    const bad = join(dir, 'bad.chunks.txt');
    await writeFile(bad, '{"type":"ping"}\n\n{"type": broken\n');
    const broken = (await rejectionOf(startLocalProvider({ script: { replies: [{ chunks: bad }] } }))) as ZunoError;
    expect(broken.message).toContain(`replies[0].chunks: line 3 of ${bad} is not valid JSON`);
  });
});

describe('delta splitting', () => {
  it('splits into several pieces that join back exactly', () => {
    for (const t of ['Hello there world', '  lead and trail  ', 'single', 'ab', 'x', 'emoji 🚀🚀 ok', '🚀🚀']) {
      const p = splitDeltas(t);
      expect(p.join('')).toBe(t);
      if (Array.from(t).length >= 2) expect(p.length).toBeGreaterThanOrEqual(2);
    }
    expect(splitPieces('{"a":1}', 3)).toHaveLength(3);
    expect(splitPieces('{"a":1}', 3).join('')).toBe('{"a":1}');
  });
});

describe('wire behaviour', () => {
  it('streams chat.completion.chunk lines: role, deltas, tool call id+name then 2+ argument pieces, finish, usage, [DONE]', async () => {
    const server = await startLocalProvider({
      script: {
        replies: [{ text: 'two words', toolCalls: [{ id: 'call_x', name: 'read', arguments: { path: 'README.md' } }] }],
      },
    });
    try {
      const res = await post(server.url, {
        model: 'm1',
        messages: [{ role: 'user', content: 'hi' }],
        stream: true,
        stream_options: { include_usage: true },
      });
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toContain('text/event-stream');
      expect(res.headers.get('x-request-id')).toBe('req_local_1');
      const lines = await dataLines(res);
      expect(lines.at(-1)).toBe('[DONE]');
      const chunks = lines.slice(0, -1).map((l) => JSON.parse(l) as Record<string, any>);
      for (const c of chunks) {
        expect(c.object).toBe('chat.completion.chunk');
        expect(c.model).toBe('m1');
      }
      expect(chunks[0]!.choices[0].delta.role).toBe('assistant');
      const textDeltas = chunks.filter(
        (c) => typeof c.choices[0]?.delta?.content === 'string' && c.choices[0].delta.content !== '',
      );
      expect(textDeltas.length).toBeGreaterThanOrEqual(2);
      const toolDeltas = chunks.filter((c) => c.choices[0]?.delta?.tool_calls);
      expect(toolDeltas[0]!.choices[0].delta.tool_calls[0]).toMatchObject({
        index: 0,
        id: 'call_x',
        function: { name: 'read', arguments: '' },
      });
      const argPieces = toolDeltas.slice(1).map((c) => c.choices[0].delta.tool_calls[0].function.arguments as string);
      expect(argPieces.length).toBeGreaterThanOrEqual(2);
      expect(argPieces.join('')).toBe('{"path":"README.md"}');
      const finish = chunks.find((c) => c.choices[0]?.finish_reason);
      expect(finish!.choices[0].finish_reason).toBe('tool_calls');
      const last = chunks.at(-1)!;
      expect(last.choices).toEqual([]);
      expect(last.usage).toMatchObject({
        prompt_tokens: expect.any(Number),
        completion_tokens: expect.any(Number),
        total_tokens: expect.any(Number),
      });
    } finally {
      await server.close();
    }
  });

  it('sends no usage chunk unless the request asks for it, and answers non-streaming requests with JSON', async () => {
    const server = await startLocalProvider({
      script: { replies: [{ text: 'a b' }, { text: 'c d', usage: { inputTokens: 3 } }] },
    });
    try {
      const lines = await dataLines(await post(server.url, { model: 'm', messages: [], stream: true }));
      expect(lines.some((l) => l.includes('"usage"'))).toBe(false);
      // the next step: one assistant message in the history
      const res = await post(server.url, { model: 'm', messages: [{ role: 'assistant', content: 'a b' }] });
      const body = (await res.json()) as Record<string, any>;
      expect(body.object).toBe('chat.completion');
      expect(body.choices[0].message).toEqual({ role: 'assistant', content: 'c d' });
      expect(body.choices[0].finish_reason).toBe('stop');
      expect(body.usage).toEqual({ prompt_tokens: 3 });
    } finally {
      await server.close();
    }
  });

  it('serves GET /v1/models, 404s unknown routes, 400s bad bodies, 500s when exhausted', async () => {
    const server = await startLocalProvider({ script: { model: 'demo-model', replies: [{ text: 'only one' }] } });
    try {
      const models = (await (await fetch(`${server.url}/models`)).json()) as Record<string, any>;
      expect(models.object).toBe('list');
      expect(models.data[0].id).toBe('demo-model');
      expect((await fetch(`${server.url}/nope`)).status).toBe(404);
      const bad = await post(server.url, '{not json');
      expect(bad.status).toBe(400);
      expect(((await bad.json()) as any).error.type).toBe('invalid_request_error');
      expect((await post(server.url, { messages: [] })).status).toBe(400);
      expect((await post(server.url, { model: 'm', messages: [], stream: true })).status).toBe(200);
      const next = { model: 'm', messages: [{ role: 'assistant', content: 'only one' }], stream: true };
      const ex = await post(server.url, next);
      expect(ex.status).toBe(500);
      const exBody = (await ex.json()) as any;
      expect(exBody.error.code).toBe('script_exhausted');
      expect(exBody.error.message).toContain('script exhausted');
      expect(server.served).toBe(1);
      expect(server.requests.map((r) => r.model)).toEqual(['m', 'm']);
    } finally {
      await server.close();
    }
  });

  it('status faults carry Retry-After verbatim and repeat `times` before the reply', async () => {
    const server = await startLocalProvider({
      script: { replies: [{ text: 'ok', fault: { status: 503, retryAfter: '7', times: 2 } }] },
    });
    try {
      const body = { model: 'm', messages: [], stream: true };
      const r1 = await post(server.url, body);
      expect([r1.status, r1.headers.get('retry-after')]).toEqual([503, '7']);
      await r1.text();
      expect((await post(server.url, body)).status).toBe(503);
      const r3 = await post(server.url, body);
      expect(r3.status).toBe(200);
      expect((await dataLines(r3)).at(-1)).toBe('[DONE]');
    } finally {
      await server.close();
    }
  });
});

describe('serveScriptCommand', () => {
  it('prints the base URL, serves, and stops on abort', async () => {
    const file = join(dir, 'serve.yaml');
    await writeFile(file, 'replies:\n  - text: served by the CLI\n  - text: on every surface\n');
    const out = new PassThrough();
    const err = new PassThrough();
    let printed = '';
    out.on('data', (b: Buffer) => {
      printed += b.toString();
    });
    err.resume();
    const ac = new AbortController();
    const done = serveScriptCommand(file, { port: 0, signal: ac.signal, stdout: out, stderr: err });
    for (let i = 0; i < 100 && !printed.includes('\n'); i++) await new Promise((r) => setTimeout(r, 20));
    const url = printed.trim();
    expect(url).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/v1$/);
    const lines = await dataLines(await post(url, { model: 'm', messages: [], stream: true }));
    expect(lines.at(-1)).toBe('[DONE]');
    const messages = await fetch(`${url}/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'anthropic-version': '2023-06-01' },
      body: JSON.stringify({ model: 'm', max_tokens: 8, messages: [], stream: true }),
    });
    expect((await messages.text()).endsWith('event: message_stop\ndata: {"type":"message_stop"}\n\n')).toBe(true);
    ac.abort();
    await done;
    await expect(fetch(`${url}/models`)).rejects.toThrow();
  });
});
