/**
 * Issue 29 item 2, Must show (HTTP): `zuno serve` on a fresh home, over
 * real HTTP, on the suite's Temporal dev server with real SQLite and a
 * scripted model (the local provider). No token → 401 and nothing recorded;
 * a session created over HTTP streams its stored events to completion (SSE
 * id = seq, event = stored type, data = the stored event unchanged); a
 * client that drops mid-stream and reconnects with Last-Event-ID gets
 * exactly the missed events; one further behind than the replay window gets
 * `replay_window_exceeded`; the OpenAPI document at /doc validates and lists
 * every route.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import SwaggerParser from '@apidevtools/swagger-parser';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/index.js';
import { makeHome, makeWorkspace, tempDir, useTestTemporal, writeJson } from '../cli/helpers.js';
import { waitFor } from '../helpers/worker-process.js';
import { call, json, openStream, startServe, type Served, type Sse } from './serve-helpers.js';

const temporal = useTestTemporal();
/** The replay window of this file's server: small, so one test can go past it. */
const WINDOW = 40;
let home: string;
let served: Served;

beforeAll(async () => {
  ({ home } = makeHome({ address: temporal.address }));
  const script = writeJson(tempDir('zuno-http-script-'), 'script.json', {
    replies: [
      { text: 'Looking.', toolCalls: [{ name: 'grep', arguments: { pattern: 'TODO', path: 'src' } }] },
      { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 3; echo slept' } }] },
      { toolCalls: [{ name: 'read', arguments: { path: 'src/a.ts' } }] },
      { text: 'The TODO is in src/a.ts.' },
    ],
  });
  served = await startServe(home, ['--script', script], { ZUNO_SSE_REPLAY_WINDOW: String(WINDOW) });
}, 180_000);

afterAll(async () => {
  const r = await served?.stop();
  if (r) expect(r.stderr).not.toMatch(/unexpected error|^\s+at /m);
}, 60_000);

/** Every stored event of `sessionId`, read from the home's projection. */
async function storedEvents(sessionId: string) {
  const store = await openProjectionStore({ zunoDir: home });
  try {
    return await store.listEvents(sessionId, 0, 10_000);
  } finally {
    await store.close();
  }
}

/** Creates a session on the server's script in a fresh workspace. */
async function createSession(): Promise<{ sessionId: string; after: number }> {
  return json<{ sessionId: string; after: number }>(
    call(served, 'POST', '/sessions', { text: 'where is the TODO?', workspace: makeWorkspace() }),
    201,
  );
}

const isEnd = (m: Sse) => m.event === 'session.completed';

describe('zuno serve: auth', () => {
  it('no token, a wrong token → 401 and nothing is recorded; Basic and Bearer with the token pass', async () => {
    const body = JSON.stringify({ text: 'hello', workspace: makeWorkspace() });
    const headers = { 'content-type': 'application/json' };
    const none = await fetch(`${served.url}/sessions`, { method: 'POST', headers, body });
    expect(none.status).toBe(401);
    expect(((await none.json()) as { error: { code: string } }).error.code).toBe('unauthorized');
    expect(none.headers.get('www-authenticate')).toMatch(/Bearer/);
    const wrong = await fetch(`${served.url}/sessions`, {
      method: 'POST',
      headers: { ...headers, authorization: `Bearer ${'0'.repeat(64)}` },
      body,
    });
    expect(wrong.status).toBe(401);
    expect((await fetch(`${served.url}/events`)).status).toBe(401);
    expect((await fetch(`${served.url}/doc`)).status).toBe(401);
    // Nothing was recorded: no session in the projection, no event.
    const store = await openProjectionStore({ zunoDir: home });
    try {
      expect(await store.listSessions({})).toEqual([]);
      expect(await store.lastSeq()).toBe(0);
    } finally {
      await store.close();
    }
    const basic = Buffer.from(`anyone:${served.token}`).toString('base64');
    const ok = await fetch(`${served.url}/sessions`, { headers: { authorization: `Basic ${basic}` } });
    expect(ok.status).toBe(200);
    expect(await ok.json()).toEqual([]);
  });

  it('the token file is 0600 and --print-token prints it', async () => {
    const { statSync } = await import('node:fs');
    expect(statSync(`${home}/http-token`).mode & 0o777).toBe(0o600);
    expect(served.token).toMatch(/^[0-9a-f]{64}$/);
    const { runZuno } = await import('../cli/helpers.js');
    const r = await runZuno(['serve', '--print-token'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(`${served.token}\n`);
  });
});

describe('zuno serve: sessions and SSE', () => {
  it('creates a session and streams its stored events, unchanged, to completion', async () => {
    const { sessionId, after } = await createSession();
    expect(sessionId).toMatch(/^ses_/);
    expect(after).toBe(0);
    const stream = await openStream(served, `/sessions/${sessionId}/events`);
    await stream.until(isEnd);
    stream.close();
    const stored = await storedEvents(sessionId);
    const upToEnd = stored.slice(0, stored.findIndex((e) => e.type === 'session.completed') + 1);
    const got = stream.messages.slice(0, stream.messages.findIndex(isEnd) + 1);
    // SSE passes the stored events through unchanged: event = type, id = seq, data = the stored row.
    expect(got.map((m) => m.data)).toEqual(JSON.parse(JSON.stringify(upToEnd)));
    for (const m of got) {
      expect(m.event).toBe(m.data.type);
      expect(m.id).toBe(String(m.data.seq));
    }
    expect(got.map((m) => m.event)).toContain('tool.started');
    const s = await json<{ status: string; title: string }>(call(served, 'GET', `/sessions/${sessionId}`), 200);
    expect(s).toMatchObject({ id: sessionId, status: 'completed', model: expect.stringMatching(/^local\//) });
    const t = await json<{ session: { id: string }; messages: unknown[] }>(
      call(served, 'GET', `/sessions/${sessionId}/transcript`),
      200,
    );
    expect(t.session.id).toBe(sessionId);
    expect(JSON.stringify(t)).toContain('The TODO is in src/a.ts.');
    const list = await json<{ id: string }[]>(call(served, 'GET', '/sessions'), 200);
    expect(list.map((r) => r.id)).toContain(sessionId);
  }, 180_000);

  it('a client dropped mid-stream that reconnects with Last-Event-ID gets exactly the missed events', async () => {
    const { sessionId } = await createSession();
    const first = await openStream(served, `/sessions/${sessionId}/events`);
    await first.until((m) => m.event === 'tool.started' && JSON.stringify(m.data).includes('sleep 3'));
    first.close();
    await sleep(200);
    const seen = [...first.messages];
    const lastId = seen.at(-1)!.id!;
    // The session goes on without the client, to its end.
    await waitFor(
      async () =>
        (await json<{ status: string }>(call(served, 'GET', `/sessions/${sessionId}`), 200)).status === 'completed',
      120_000,
      'the session to complete',
    );
    const second = await openStream(served, `/sessions/${sessionId}/events`, lastId);
    await second.until(isEnd);
    second.close();
    const resumed = second.messages.slice(0, second.messages.findIndex(isEnd) + 1);
    expect(resumed.length).toBeGreaterThan(0);
    expect(Number(resumed[0]!.id)).toBeGreaterThan(Number(lastId));
    const stored = (await storedEvents(sessionId)).filter((e) => e.seq <= Number(resumed.at(-1)!.id));
    // No duplicate, no gap: what the two connections saw is the stored sequence exactly.
    expect([...seen, ...resumed].map((m) => Number(m.id))).toEqual(stored.map((e) => e.seq));
    // The same with the `after` query parameter (clients that cannot set the header).
    const third = await openStream(served, `/sessions/${sessionId}/events?after=${lastId}`);
    await third.until(isEnd);
    third.close();
    expect(third.messages.slice(0, resumed.length).map((m) => m.id)).toEqual(resumed.map((m) => m.id));
  }, 180_000);

  it(`a client further back than the replay window (${WINDOW}) gets replay_window_exceeded, then the stream goes on`, async () => {
    const store = await openProjectionStore({ zunoDir: home });
    const head = await store.lastSeq().finally(() => store.close());
    expect(head).toBeGreaterThan(WINDOW);
    const home$ = await openStream(served, '/events', '0');
    const w = await home$.until((m) => m.event === 'replay_window_exceeded');
    expect(home$.messages[0]).toBe(w);
    expect(w.id).toBe(String(head));
    expect(w.data).toMatchObject({ type: 'replay_window_exceeded', lastEventId: 0, window: WINDOW, latestSeq: head });
    // Live events follow: a new session's first event arrives with the next seq.
    const { sessionId } = await createSession();
    const next = await home$.until((m) => m.data.sessionId === sessionId);
    expect(Number(next.id)).toBeGreaterThan(head);
    await home$.until((m) => m.data.sessionId === sessionId && isEnd(m));
    home$.close();
    const ids = home$.messages.slice(1).map((m) => Number(m.id));
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(new Set(ids).size).toBe(ids.length);
    // Within the window the home stream replays exactly.
    const within = await openStream(served, '/events', String(head));
    const firstAfter = await within.until(() => true);
    within.close();
    expect(firstAfter.id).toBe(String(head + 1));
    // A resume point past the newest event (another home's id) is told to reload, never left waiting.
    const now = await openProjectionStore({ zunoDir: home }).then((st) => st.lastSeq().finally(() => st.close()));
    const ahead = await openStream(served, '/events', String(now + 1000));
    const told = await ahead.until(() => true);
    ahead.close();
    expect(told.event).toBe('replay_window_exceeded');
    expect(told.data).toMatchObject({ lastEventId: now + 1000, latestSeq: now });
  }, 180_000);
});

describe('zuno serve: heartbeats', () => {
  it('a quiet stream gets a heartbeat comment after 10 s, and no message', async () => {
    const store = await openProjectionStore({ zunoDir: home });
    const head = await store.lastSeq().finally(() => store.close());
    const quiet = await openStream(served, '/events', String(head));
    await waitFor(async () => quiet.comments.includes('heartbeat') || undefined, 60_000, 'a heartbeat');
    quiet.close();
    expect(quiet.messages).toEqual([]);
  }, 90_000);
});

describe('zuno serve: interrupt and the next prompt', () => {
  it('interrupts a running turn, then a prompt reopens the session and a resend of it is one input', async () => {
    const { sessionId } = await createSession();
    const stream = await openStream(served, `/sessions/${sessionId}/events`);
    await stream.until((m) => m.event === 'tool.started' && JSON.stringify(m.data).includes('sleep 3'));
    const receipt = await json(call(served, 'POST', `/sessions/${sessionId}/interrupt`), 200);
    expect(receipt).toMatchObject({ sessionId, interrupted: true, alreadyRequested: false });
    await stream.until((m) => m.event === 'session.interrupted');
    stream.close();
    await waitFor(
      async () =>
        (await json<{ status: string }>(call(served, 'GET', `/sessions/${sessionId}`), 200)).status !== 'running',
      60_000,
      'the session to settle',
    );
    const again = await call(served, 'POST', `/sessions/${sessionId}/interrupt`);
    expect(again.status).toBe(409);
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe('session_not_running');

    const body = { text: 'go on', clientMessageId: 'msg-1' };
    const next = await json<{ after: number; inputId: string; duplicate: boolean }>(
      call(served, 'POST', `/sessions/${sessionId}/prompt`, body),
      202,
    );
    expect(next.duplicate).toBe(false);
    const resent = await json<{ inputId: string; duplicate: boolean }>(
      call(served, 'POST', `/sessions/${sessionId}/prompt`, body),
      202,
    );
    expect(resent).toMatchObject({ inputId: next.inputId, duplicate: true });
    const rest = await openStream(served, `/sessions/${sessionId}/events`, String(next.after));
    const end = await rest.until((m) => m.event === 'session.completed');
    rest.close();
    expect((end.data.data as { inputIds?: string[] }).inputIds).toContain(next.inputId);
    expect(Number(rest.messages[0]!.id)).toBe(next.after + 1);
  }, 180_000);
});

describe('zuno serve: errors and the OpenAPI document', () => {
  it('bad input, unknown sessions and routes answer typed JSON errors without a stack', async () => {
    const bad = await call(served, 'POST', '/sessions', { text: '' });
    expect(bad.status).toBe(400);
    const badBody = (await bad.json()) as { error: { code: string; message: string } };
    expect(badBody.error.code).toBe('request_invalid');
    const missing = await call(served, 'GET', '/sessions/ses_nosuchsession');
    expect(missing.status).toBe(404);
    expect(((await missing.json()) as { error: { code: string } }).error.code).toBe('session_not_found');
    const noRoute = await call(served, 'GET', '/nope');
    expect(noRoute.status).toBe(404);
    const malformed = await fetch(`${served.url}/sessions`, {
      method: 'POST',
      headers: { authorization: `Bearer ${served.token}`, 'content-type': 'application/json' },
      body: '{"text": ',
    });
    expect(malformed.status).toBe(400);
    const big = await call(served, 'POST', '/sessions', { text: 'x'.repeat(2 * 1024 * 1024), workspace: '/tmp' });
    expect(big.status).toBe(413);
    expect(((await big.json()) as { error: { code: string } }).error.code).toBe('body_too_large');
    const stale = await call(served, 'POST', '/approvals/ap_9_9_9/decision', {
      decision: 'approve_once',
      commandId: 'c1',
      expectedRevision: 0,
    });
    expect(stale.status).toBe(404);
    for (const r of [badBody, missing, noRoute].map((x) => JSON.stringify(x))) expect(r).not.toMatch(/\bat .+:\d+:\d+/);
  });

  it('GET /doc is a valid OpenAPI document that lists every route', async () => {
    const doc = await json<Record<string, unknown>>(call(served, 'GET', '/doc'), 200);
    const api = (await SwaggerParser.validate(structuredClone(doc) as never)) as { paths: Record<string, object> };
    const routes = Object.entries(api.paths).flatMap(([p, ops]) =>
      Object.keys(ops).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(routes.sort()).toEqual(
      [
        'GET /sessions',
        'POST /sessions',
        'GET /sessions/{id}',
        'GET /sessions/{id}/transcript',
        'POST /sessions/{id}/prompt',
        'POST /sessions/{id}/interrupt',
        'GET /sessions/{id}/events',
        'GET /events',
        'GET /approvals',
        'POST /approvals/{id}/decision',
        'GET /questions',
        'POST /questions/{id}/answer',
        'POST /goals',
        'GET /goals/{id}',
        'POST /goals/{id}/control',
        'POST /councils',
        'GET /councils/{id}',
        'POST /councils/{id}/cancel',
      ].sort(),
    );
  });
});
