import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, it } from 'vitest';
import { currentSummary } from '../../activities/session/compaction/current.js';
import { EV } from '../../core/events.js';
import type { ScriptReply } from '../../local-provider/script.js';
import { createProcessHarness, resultWithin, useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * A worker SIGKILLed during the compaction activity (CP13, issue 28): real
 * Temporal, two `zuno worker` processes, the real SQLite projection, the
 * scripted provider over HTTP. The second compaction's summary answer is
 * slow (a scripted header delay), so its activity is in flight when the
 * worker dies; the next worker's retry publishes it exactly once, the
 * earlier summary stays the valid one until then, and no tool runs again.
 */
const cleanups = useCleanups();

const SUMMARY_ONE = 'SUMMARY-ONE: f0 and f1 were read; next append to the log and read f2.';
const SUMMARY_TWO = 'SUMMARY-TWO: f0, f1 read, the log appended once; next read f2.';
/** Long enough that the crash lands while the summary request waits (the test crashes as soon as it arrives). */
const SLOW_SUMMARY_MS = 20_000;

/** A workspace with three files of about 3 000 characters each (`f0.txt` …). */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-compact-crash-ws-'));
  for (let i = 0; i < 3; i++) {
    const lines = Array.from({ length: 60 }, (_, l) => `file ${i} line ${l}: notes about the retry policy`);
    writeFileSync(join(dir, `f${i}.txt`), `${lines.join('\n')}\n`);
  }
  return dir;
}

const read = (i: number): ScriptReply => ({ toolCalls: [{ name: 'read', arguments: { path: `f${i}.txt` } }] });
const isCompaction = (body: unknown) =>
  ((body as { messages?: { role: string; content: unknown }[] }).messages ?? []).some(
    (m) => m.role === 'user' && typeof m.content === 'string' && m.content.startsWith('Compaction request'),
  );

it('a worker SIGKILLed during the compaction activity: the summary is published once, the earlier summary stays valid until then, nothing else runs again', async () => {
  const { h, spawnWorker } = await createProcessHarness('zuno-compact-crash', cleanups);
  const ws = workspace();
  const first = spawnWorker();
  // No window is configured: the two compactions are the provider's context-limit errors (CP8), one each.
  const run = await h.startScripted({
    workspace: ws,
    prompt: 'Read the notes, append to the log, read the rest.',
    tools: ['read', 'shell'],
    script: {
      replies: [
        read(0),
        { ...read(1), fault: { contextLimit: true } },
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo x >> log.txt' } }] },
        { ...read(2), fault: { contextLimit: true } },
        { text: 'all done' },
      ],
      threads: [
        {
          match: 'Compaction request',
          replies: [{ text: SUMMARY_ONE }, { text: SUMMARY_TWO, fault: { delayMs: SLOW_SUMMARY_MS } }],
        },
      ],
    },
  });
  cleanups.push(() => run.closeProvider());
  const events = async (type: string) =>
    (await h.store.listEvents(run.sessionId, 0, 5000)).filter((e) => e.type === type);

  // The second compaction is in flight: its marker is written and its summary request reached the provider.
  const firstPublished = await waitFor(
    async () => (await events(EV.compactionSummary))[0],
    120_000,
    'the first summary',
  );
  const firstId = firstPublished.data.compactionId as string;
  const marker = await waitFor(
    async () => (await events(EV.contextCompact)).find((e) => e.data.compactionId !== firstId),
    120_000,
    "the second compaction's marker",
  );
  await waitFor(
    async () => run.providerRequests.filter(isCompaction).length === 2,
    60_000,
    'the second summary request',
  );
  const secondId = marker.data.compactionId as string;
  expect(marker.data).toMatchObject({ trigger: 'context_limit', attempt: 1 });
  // CP13: until the second summary is published, the first one is the valid summary.
  expect(await currentSummary(h.store, run.sessionId)).toMatchObject({ compactionId: firstId, summary: SUMMARY_ONE });
  expect(await events(EV.compactionSummary)).toHaveLength(1);
  await first.crash();
  // The killed attempt published nothing.
  expect(await events(EV.compactionSummary)).toHaveLength(1);
  expect(await currentSummary(h.store, run.sessionId)).toMatchObject({ compactionId: firstId });

  const second = spawnWorker();
  cleanups.push(() => second.stop());
  const result = await resultWithin(run, second, 240_000);
  expect(result.status).toBe('completed');
  const t = (await h.store.loadTranscript(run.sessionId))!;
  expect(t.session.finalText).toBe('all done');

  // Exactly one summary per compaction id; the second is now the valid one.
  const published = await events(EV.compactionSummary);
  expect(published.map((e) => [e.data.compactionId, e.data.summary])).toEqual([
    [firstId, SUMMARY_ONE],
    [secondId, SUMMARY_TWO],
  ]);
  expect(published[1]!.data.previous).toBe(firstId);
  expect(await currentSummary(h.store, run.sessionId)).toMatchObject({ compactionId: secondId, summary: SUMMARY_TWO });
  const markers = await events(EV.contextCompact);
  expect(markers.filter((e) => e.data.compactionId === firstId).map((e) => e.data.attempt)).toEqual([1]);
  expect(markers.filter((e) => e.data.compactionId === secondId).map((e) => e.data.attempt)).toEqual([1, 2]);
  expect(await events(EV.compactionFailed)).toHaveLength(0);
  // The retried summary request was the same request (same position, same reply); CP13: it inherited SUMMARY-ONE.
  const summaryRequests = run.providerRequests.filter(isCompaction);
  expect(summaryRequests).toHaveLength(3);
  expect(summaryRequests[2]).toEqual(summaryRequests[1]);
  expect(JSON.stringify(summaryRequests[1])).toContain(SUMMARY_ONE);

  // Nothing else ran again: one start per tool call, at attempt 1; the shell's side effect happened once.
  expect(t.toolCalls.map((c) => [c.tool, c.tool === 'shell' ? c.argsJson : JSON.parse(c.argsJson).path])).toEqual([
    ['read', 'f0.txt'],
    ['read', 'f1.txt'],
    ['shell', JSON.stringify({ command: 'echo x >> log.txt' })],
    ['read', 'f2.txt'],
  ]);
  const started = await events(EV.toolStarted);
  expect(started.map((e) => [e.data.callId, e.data.attempt])).toEqual(t.toolCalls.map((c) => [c.callId, 1]));
  expect(readFileSync(join(ws, 'log.txt'), 'utf8')).toBe('x\n');
  expect(await events(EV.failed)).toHaveLength(0);
}, 400_000);
