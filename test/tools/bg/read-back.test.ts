import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { LIVE_RETAINED_BYTES, runBackground, runBg, type BgCompletion } from '../../../activities/tools/bg/index.js';
import { BG_DEFAULT_LIMIT, BG_MAX_LIMIT } from '../../../core/tools/bg.js';
import { bgCtx, eventually, exists, expectedLines, numberedLines, statusOf, toolCtx, workspace } from './helpers.js';

const LINES = 200_000; // 2.8 MB: more than the 2 MiB kept in memory

describe('bg read-back of a running task (BG1–BG4)', () => {
  it('newest window from memory, old cursors from disk, exact paging, clamping, out-of-range, timed-out wait, cancel', async () => {
    const ws = workspace();
    const expected = expectedLines(LINES);
    expect(expected.length).toBeGreaterThan(LIVE_RETAINED_BYTES);
    const progress: number[] = [];
    const running: Promise<BgCompletion> = runBackground(
      { command: `${numberedLines(LINES)}; touch printed; sleep 30` },
      bgCtx(ws, 'bg_1_0_0', { onProgress: (n) => progress.push(n) }),
    );
    const ctx = toolCtx(ws);
    try {
      expect(await eventually(() => exists(ws, 'printed'), 20_000)).toBe(true);

      // Newest window, served from memory, ending at totalWritten.
      const newest = await runBg({ action: 'output', taskID: 'bg_1_0_0' }, ctx);
      expect(newest.isError).toBe(false);
      expect(newest.data).toMatchObject({
        taskID: 'bg_1_0_0',
        terminal: false,
        state: 'running',
        totalWritten: expected.length,
        nextCursor: expected.length,
        windowFrom: expected.length - BG_DEFAULT_LIMIT,
        cursor: expected.length - BG_DEFAULT_LIMIT,
        bytes: BG_DEFAULT_LIMIT,
        hasEarlier: true,
        hasMore: false,
        fromDisk: false,
      });
      expect(newest.output.endsWith(expected.subarray(expected.length - BG_DEFAULT_LIMIT).toString('utf8'))).toBe(true);
      expect(progress.at(-1)).toBe(expected.length);
      expect(progress).toEqual([...progress].sort((a, b) => a - b));

      // Cursor 0 is older than the retained 2 MiB: served from the file.
      const first = await runBg({ action: 'output', taskID: 'bg_1_0_0', cursor: 0 }, ctx);
      expect(first.data).toMatchObject({
        cursor: 0,
        windowFrom: 0,
        hasEarlier: false,
        hasMore: true,
        nextCursor: BG_DEFAULT_LIMIT,
        fromDisk: true,
      });
      expect(first.output.endsWith(`\n\n${expected.subarray(0, BG_DEFAULT_LIMIT).toString('utf8')}`)).toBe(true);

      // Paging forward with nextCursor reproduces the file byte for byte.
      const pages: Buffer[] = [];
      const sources = new Set<boolean>();
      let cursor = 0;
      for (;;) {
        const r = await runBg({ action: 'output', taskID: 'bg_1_0_0', cursor, limit: BG_MAX_LIMIT }, ctx);
        const d = r.data as { nextCursor: number; hasMore: boolean; bytes: number; fromDisk: boolean };
        pages.push(Buffer.from(r.output.slice(r.output.indexOf('\n\n') + 2), 'utf8'));
        expect(d.bytes).toBe(Math.min(BG_MAX_LIMIT, expected.length - cursor));
        sources.add(d.fromDisk);
        cursor = d.nextCursor;
        if (!d.hasMore) break;
      }
      const paged = Buffer.concat(pages);
      expect(paged.equals(expected)).toBe(true);
      expect(sources).toEqual(new Set([true, false]));
      expect(statusOf(ws, 'bg_1_0_0')).toMatchObject({ state: 'running', workerPid: process.pid });
      expect(statusOf(ws, 'bg_1_0_0')?.guardPid).toBeGreaterThan(0);

      // A limit above the maximum is clamped, not rejected.
      const clamped = await runBg({ action: 'output', taskID: 'bg_1_0_0', cursor: 0, limit: 999_999 }, ctx);
      expect(clamped.isError).toBe(false);
      expect(clamped.data).toMatchObject({ bytes: BG_MAX_LIMIT, limit: BG_MAX_LIMIT, requestedLimit: 999_999 });
      expect(clamped.output).toContain('limit 999999 was clamped to 51200');

      // A cursor past the end is a typed error naming the end; at the end, an empty window.
      const beyond = await runBg({ action: 'output', taskID: 'bg_1_0_0', cursor: expected.length + 1 }, ctx);
      expect(beyond).toMatchObject({
        isError: true,
        errorCode: 'cursor_out_of_range',
        data: { taskID: 'bg_1_0_0', terminal: false, totalWritten: expected.length },
      });
      expect(beyond.output).toContain(`${expected.length} bytes written so far`);
      const atEnd = await runBg({ action: 'output', taskID: 'bg_1_0_0', cursor: expected.length }, ctx);
      expect(atEnd.data).toMatchObject({ bytes: 0, hasMore: false, hasEarlier: true, nextCursor: expected.length });

      // A wait that times out is not an error: same task, still running.
      const started = Date.now();
      const waited = await runBg({ action: 'wait', taskID: 'bg_1_0_0', timeoutMs: 300 }, ctx);
      expect(Date.now() - started).toBeGreaterThanOrEqual(290);
      expect(waited.isError).toBe(false);
      expect(waited.data).toMatchObject({ taskID: 'bg_1_0_0', timedOut: true, terminal: false, state: 'running' });
      expect(waited.output).toMatch(/^Still running after waiting 300 ms\. That is not a failure/);

      // Cancel: stopped while running → cancelled, receipt unknown and marked cancelled (SH5).
      const cancelled = await runBg({ action: 'cancel', taskID: 'bg_1_0_0' }, ctx);
      expect(cancelled.isError).toBe(false);
      expect(cancelled.data).toMatchObject({
        taskID: 'bg_1_0_0',
        terminal: true,
        state: 'cancelled',
        uncertain: true,
        cancelRequested: true,
        receipt: { verdict: 'unknown', authority: 'none', cancelled: true },
      });
      expect((cancelled.data as { exitCode?: number }).exitCode).toBeUndefined();
      expect(cancelled.output).toMatch(/^Background task bg_1_0_0 was cancelled after/);
      expect(cancelled.output).toContain('inspect state first');

      const completion = await running;
      expect(completion).toMatchObject({
        taskID: 'bg_1_0_0',
        state: 'cancelled',
        outcome: 'uncertain',
        uncertainCause: 'cancelled',
        totalWritten: expected.length,
      });
      expect(Buffer.byteLength(completion.report, 'utf8')).toBeLessThanOrEqual(4096);
      expect(completion.report).toContain(`Output: ${expected.length} bytes; the last`);
      expect(completion.report).toContain(`line ${String(LINES).padStart(8, '0')}\n`);
      expect(readFileSync(completion.outputPath).equals(expected)).toBe(true);
      expect(statusOf(ws, 'bg_1_0_0')).toMatchObject({ state: 'cancelled', totalWritten: expected.length });

      // Once settled, the newest window comes from the file; cancel again is idempotent.
      const after = await runBg({ action: 'output', taskID: 'bg_1_0_0', limit: 14 }, ctx);
      expect(after.data).toMatchObject({ terminal: true, state: 'cancelled', fromDisk: true, bytes: 14 });
      expect(after.output.endsWith(`line ${String(LINES).padStart(8, '0')}\n`)).toBe(true);
      const again = await runBg({ action: 'cancel', taskID: 'bg_1_0_0' }, ctx);
      expect(again.data).toMatchObject({ terminal: true, state: 'cancelled', alreadyEnded: true });
    } finally {
      await runBg({ action: 'cancel', taskID: 'bg_1_0_0' }, ctx);
      await running;
    }
  });
});
