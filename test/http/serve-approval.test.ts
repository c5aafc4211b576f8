/**
 * Issue 29 item 2, Must show (HTTP): an approval decided over HTTP runs the
 * call once. A strict session created over HTTP asks before its shell call;
 * the client lists it, a decision naming another revision is refused
 * `approval_stale_revision` (409) and nothing runs, the decision with the
 * listed revision runs the call, the same command sent again is answered as
 * a duplicate and another command is refused `approval_already_decided`.
 * Real `zuno serve`, real Temporal dev server, real shell, real SQLite.
 */
import { afterAll, beforeAll, expect, it } from 'vitest';
import { makeHome, makeWorkspace, markerLines, tempDir, useTestTemporal, writeJson } from '../cli/helpers.js';
import { call, json, openStream, startServe, STRICT_CONFIG, type Served } from './serve-helpers.js';

const temporal = useTestTemporal();
let served: Served;

beforeAll(async () => {
  const { home } = makeHome({ address: temporal.address });
  const script = writeJson(tempDir('zuno-http-approval-'), 'script.json', {
    replies: [{ toolCalls: [{ name: 'shell', arguments: { command: 'echo ran >> marker.txt' } }] }, { text: 'Done.' }],
  });
  served = await startServe(home, ['--script', script]);
}, 180_000);

afterAll(async () => {
  await served?.stop();
}, 60_000);

it('an approval decided over HTTP (command id, expected revision) runs the call once', async () => {
  const ws = makeWorkspace();
  writeJson(ws, 'zuno.json', STRICT_CONFIG);
  const { sessionId } = await json<{ sessionId: string }>(
    call(served, 'POST', '/sessions', { text: 'write the marker', workspace: ws }),
    201,
  );
  const stream = await openStream(served, `/sessions/${sessionId}/events`);
  const asked = await stream.until((m) => m.event === 'approval.requested');
  const listed = await json<{ id: string; sessionId: string; revision: number; subjectText: string }[]>(
    call(served, 'GET', `/approvals?session=${sessionId}`),
    200,
  );
  expect(listed).toHaveLength(1);
  const row = listed[0]!;
  expect(row).toMatchObject({ sessionId, subjectText: 'echo ran >> marker.txt' });
  expect(asked.data.data).toMatchObject({ approvalId: row.id });

  const decide = (body: Record<string, unknown>) => call(served, 'POST', `/approvals/${row.id}/decision`, body);
  const stale = await decide({ decision: 'approve_once', commandId: 'cmd-stale', expectedRevision: row.revision + 1 });
  expect(stale.status).toBe(409);
  expect(((await stale.json()) as { error: { code: string } }).error.code).toBe('approval_stale_revision');
  const missingRevision = await decide({ decision: 'approve_once', commandId: 'cmd-x' });
  expect(missingRevision.status).toBe(400);
  expect(markerLines(ws)).toBe(0);

  const ok = await json<{ decision: string; duplicate: boolean; sessionId: string }>(
    decide({ decision: 'approve_once', commandId: 'cmd-1', expectedRevision: row.revision }),
    200,
  );
  expect(ok).toMatchObject({ sessionId, approvalId: row.id, decision: 'approve_once', duplicate: false });
  await stream.until((m) => m.event === 'session.completed');
  stream.close();
  expect(stream.messages.map((m) => m.event)).toEqual(expect.arrayContaining(['approval.decided', 'tool.completed']));
  expect(markerLines(ws)).toBe(1);

  // The same command again (a client's retry) is the same decision; another command is refused.
  const again = await json<{ duplicate: boolean }>(
    decide({ decision: 'approve_once', commandId: 'cmd-1', expectedRevision: row.revision }),
    200,
  );
  expect(again).toMatchObject({ approvalId: row.id, decision: 'approve_once', duplicate: true });
  const other = await decide({ decision: 'deny', commandId: 'cmd-2', expectedRevision: row.revision });
  expect(other.status).toBe(409);
  expect(((await other.json()) as { error: { code: string } }).error.code).toBe('approval_already_decided');
  expect(markerLines(ws)).toBe(1);
  expect(await json(call(served, 'GET', `/approvals?session=${sessionId}`), 200)).toEqual([]);
}, 180_000);
