/**
 * Issue 29 item 2, Must show (HTTP): a worker SIGKILLed while a client
 * streams → the stream continues after recovery. `zuno serve` with the host
 * worker service (ZUNO_WORKER=service, the default for users); the service
 * is SIGKILLed mid shell call while a client follows the session's SSE
 * stream. The server's idle checks start the service again, the session
 * ends honestly (the lost call is recorded uncertain, never run twice), and
 * the same connection carries every event to the end, in seq order.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { pidAlive } from '../../worker/process-info.js';
import { makeHome, makeWorkspace, markerLines, runZuno, tempDir, useTestTemporal, writeJson } from '../cli/helpers.js';
import { waitFor } from '../helpers/worker-process.js';
import { call, json, openStream, startServe, type Served } from './serve-helpers.js';

const temporal = useTestTemporal();
const SERVICE = { ZUNO_WORKER: 'service' };
let home: string;
let served: Served;

/** The pid the home's worker record names, or null. */
function workerPid(): number | null {
  try {
    return (JSON.parse(readFileSync(join(home, 'worker.json'), 'utf8')) as { pid: number }).pid;
  } catch {
    return null;
  }
}

beforeAll(async () => {
  ({ home } = makeHome({ address: temporal.address }));
  const script = writeJson(tempDir('zuno-http-kill-'), 'script.json', {
    replies: [
      { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 6; echo ran >> marker.txt' } }] },
      { text: 'All done.' },
    ],
  });
  served = await startServe(home, ['--script', script], SERVICE);
}, 180_000);

afterAll(async () => {
  await served?.stop();
  await runZuno(['worker', 'stop'], { home, env: SERVICE, timeoutMs: 60_000 });
  const pid = workerPid();
  if (pid !== null && pidAlive(pid)) process.kill(pid, 'SIGKILL');
}, 180_000);

it('the host worker SIGKILLed while a client streams: the server starts it again and the stream goes on to the end', async () => {
  const ws = makeWorkspace();
  const { sessionId } = await json<{ sessionId: string }>(
    call(served, 'POST', '/sessions', { text: 'run the slow thing', workspace: ws }),
    201,
  );
  const stream = await openStream(served, `/sessions/${sessionId}/events`);
  await stream.until((m) => m.event === 'tool.started');
  const first = workerPid()!;
  expect(pidAlive(first)).toBe(true);
  process.kill(first, 'SIGKILL');

  const end = await stream.until((m) => m.event === 'session.completed', 300_000);
  stream.close();
  expect(JSON.stringify(end.data)).toContain('All done.');
  // The server noticed and started the service again (its idle check, SF9).
  await waitFor(async () => (workerPid() !== first ? true : undefined), 60_000, 'a new host worker');
  expect(served.stderr()).toContain(`the host worker (pid ${first}) had stopped`);
  // One connection, every event once, in seq order; the lost call is uncertain and never ran twice.
  const ids = stream.messages.map((m) => Number(m.id));
  expect(ids).toEqual([...ids].sort((a, b) => a - b));
  expect(new Set(ids).size).toBe(ids.length);
  expect(markerLines(ws)).toBeLessThanOrEqual(1);
  expect(JSON.stringify(stream.messages.map((m) => m.data))).toMatch(/uncertain/);
}, 400_000);
