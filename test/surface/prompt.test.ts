/**
 * The surfaces' shared way in (client/surface/), against the suite's
 * Temporal server and a real SQLite projection, with the session served by a
 * worker in this process (ZUNO_WORKER=in-process): a prompt is admitted like
 * `zuno run`'s, followed to the turn-end event that names its input (SF10),
 * a resend of the same client message id admits nothing (SE2), and a second
 * prompt while one runs is answered in order with its own end.
 */
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { EventRow } from '../../activities/projection/index.js';
import { ZunoError } from '../../core/errors.js';
import { newSessionId } from '../../client/session-start.js';
import { admitPrompt, followPrompt, openSurfaceHost, type SurfaceHost } from '../../client/surface/index.js';
import { makeHome, makeWorkspace } from '../cli/helpers.js';

let host: SurfaceHost;
let ws: string;

beforeAll(async () => {
  const address = inject('temporalAddress');
  process.env.ZUNO_HOME = makeHome({ address }).home;
  process.env.ZUNO_WORKER = 'in-process';
  ws = makeWorkspace();
  host = await openSurfaceHost({ command: 'surface test', notify: null });
});

afterAll(async () => {
  await host?.close();
});

describe('admitPrompt and followPrompt', () => {
  it('a new session answers; the prompt ends at its own turn end, after every event before it', async () => {
    const sessionId = newSessionId();
    const a = await admitPrompt(host, {
      sessionId,
      text: 'read a file',
      workspace: ws,
      clientMessageId: 'cmi_first',
      script: {
        replies: [{ toolCalls: [{ name: 'read', arguments: { path: 'src/a.ts' } }] }, { text: 'it holds a TODO' }],
      },
    });
    expect(a.receipt).toMatchObject({ sessionId, status: 'driven', duplicate: false });
    const seen: EventRow[] = [];
    const end = await followPrompt(host, a, { onEvent: (e) => void seen.push(e) });
    expect(end).toMatchObject({ status: 'completed', text: 'it holds a TODO', error: null });
    expect(seen.at(-1)).toBe(end.event);
    expect(seen.map((e) => e.type)).toEqual(expect.arrayContaining(['tool.started', 'tool.completed']));
    expect(seen.map((e) => e.seq)).toEqual([...seen.map((e) => e.seq)].sort((x, y) => x - y));
    expect((await host.store.listSessions()).map((s) => s.id)).toContain(sessionId);

    // A resend of the same client message id, after the session closed: the same input, nothing admitted again.
    const again = await admitPrompt(host, { sessionId, text: 'read a file', clientMessageId: 'cmi_first' });
    expect(again.receipt).toMatchObject({ inputId: a.receipt.inputId, duplicate: true });
    const replayed: EventRow[] = [];
    const same = await followPrompt(host, again, { onEvent: (e) => void replayed.push(e) });
    expect(same.event?.seq).toBe(end.event?.seq);
    expect(replayed).toEqual([]);
    expect(await host.store.listInputs(sessionId)).toHaveLength(1);
  });

  it('a second prompt while the first runs is admitted and each ends at the turn that answered it', async () => {
    const sessionId = newSessionId();
    const first = await admitPrompt(host, {
      sessionId,
      text: 'wait a little',
      workspace: ws,
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 2; echo done' } }] },
          { text: 'answer one' },
          { text: 'answer two' },
        ],
      },
    });
    await waitForEvent(host, sessionId, 'tool.started');
    const second = await admitPrompt(host, { sessionId, text: 'and then this', clientMessageId: 'cmi_second' });
    expect(['steered', 'pending']).toContain(second.receipt.status);
    const [e1, e2] = await Promise.all([
      followPrompt(host, first, { onEvent: () => undefined }),
      followPrompt(host, second, { onEvent: () => undefined }),
    ]);
    expect(e1.status).toBe('completed');
    expect(e2.status).toBe('completed');
    expect(e1.event!.data.inputIds).toContain(first.receipt.inputId);
    expect(e2.event!.data.inputIds).toContain(second.receipt.inputId);
    expect(e2.event!.seq).toBeGreaterThanOrEqual(e1.event!.seq);
  });

  it('typed refusals: an unknown session with no workspace, a malformed id, an empty prompt', async () => {
    const code = (p: Promise<unknown>) =>
      p.then(
        () => 'admitted',
        (err: unknown) => (err instanceof ZunoError ? err.code : String(err)),
      );
    expect(await code(admitPrompt(host, { sessionId: newSessionId(), text: 'hi' }))).toBe('session_not_found');
    expect(await code(admitPrompt(host, { sessionId: 'nope', text: 'hi', workspace: ws }))).toBe('session_id_invalid');
    expect(await code(admitPrompt(host, { sessionId: newSessionId(), text: '  ', workspace: ws }))).toBe(
      'input_rejected',
    );
  });
});

/** Polls the session's events until one of `type` is stored (the test's own limit guards a hang). */
async function waitForEvent(h: SurfaceHost, sessionId: string, type: string): Promise<void> {
  for (;;) {
    if ((await h.store.listEvents(sessionId, 0, 1000)).some((e) => e.type === type)) return;
    await new Promise((r) => setTimeout(r, 50));
  }
}
