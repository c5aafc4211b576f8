import { describe, expect, it } from 'vitest';
import { ByteRing, planWindow, runBackground, runBg } from '../../../activities/tools/bg/index.js';
import { buildReport } from '../../../activities/tools/bg/report.js';
import { bgCtx, toolCtx, workspace } from './helpers.js';

describe('window bounds (BG1, BG3)', () => {
  it('output/wait without cursor end at totalWritten; artifact starts at 0; limits clamp; past-the-end is typed', () => {
    expect(planWindow({ anchor: 'tail' }, 100_000)).toEqual({ from: 100_000 - 16_384, to: 100_000, limit: 16_384 });
    expect(planWindow({ anchor: 'head' }, 100_000)).toEqual({ from: 0, to: 16_384, limit: 16_384 });
    expect(planWindow({ anchor: 'tail' }, 10)).toEqual({ from: 0, to: 10, limit: 16_384 });
    expect(planWindow({ anchor: 'tail', cursor: 5, limit: 999_999 }, 100_000)).toEqual({
      from: 5,
      to: 51_205,
      limit: 51_200,
      requestedLimit: 999_999,
    });
    expect(planWindow({ anchor: 'head', cursor: 10 }, 10)).toEqual({ from: 10, to: 10, limit: 16_384 });
    expect(planWindow({ anchor: 'head', cursor: 11 }, 10)).toEqual({
      code: 'cursor_out_of_range',
      cursor: 11,
      totalWritten: 10,
    });
  });
});

describe('ByteRing keeps the newest bytes by absolute offset (BG2)', () => {
  it('wraps around, reports what it retains, and refuses reads outside it', () => {
    const ring = new ByteRing(8);
    ring.append(Buffer.from('abcdef'));
    expect([ring.start, ring.end]).toEqual([0, 6]);
    ring.append(Buffer.from('ghijk'));
    expect([ring.start, ring.end]).toEqual([3, 11]);
    expect(ring.read(3, 11)!.toString()).toBe('defghijk');
    expect(ring.read(9, 11)!.toString()).toBe('jk');
    expect(ring.read(2, 5)).toBeNull();
    expect(ring.read(10, 12)).toBeNull();
    ring.append(Buffer.from('0123456789XY'));
    expect([ring.start, ring.end]).toEqual([15, 23]);
    expect(ring.read(15, 23)!.toString()).toBe('456789XY');
    ring.append(Buffer.from('zz'), 100); // a skipped gap
    expect([ring.start, ring.end]).toEqual([100, 102]);
    expect(ring.read(100, 102)!.toString()).toBe('zz');
    expect(() => ring.append(Buffer.from('q'), 50)).toThrow(RangeError);
  });
});

describe('bytes that are not plain text (BG1)', () => {
  it('says when a window starts or ends inside a multi-byte character, and when it holds binary bytes', async () => {
    const ws = workspace();
    const c = await runBackground({ command: "printf 'éééé'" }, bgCtx(ws, 'bg_1_0_0')); // 8 bytes
    expect(c.totalWritten).toBe(8);
    const ctx = toolCtx(ws);
    const split = await runBg({ action: 'output', taskID: 'bg_1_0_0', cursor: 1, limit: 4 }, ctx);
    expect(split.data).toMatchObject({
      cursor: 1,
      nextCursor: 5,
      bytes: 4,
      startsInsideCharacter: true,
      endsInsideCharacter: true,
      binary: false,
    });
    expect(split.output).toContain('starts inside a multi-byte UTF-8 character');
    expect(split.output).toContain('ends inside a multi-byte UTF-8 character');
    expect(split.output.endsWith('\n\n\uFFFDé\uFFFD')).toBe(true);
    const whole = await runBg({ action: 'output', taskID: 'bg_1_0_0', cursor: 2, limit: 4 }, ctx);
    expect(whole.data).toMatchObject({ startsInsideCharacter: false, endsInsideCharacter: false, binary: false });
    expect(whole.output.endsWith('\n\néé')).toBe(true);

    const b = await runBackground({ command: "printf 'ok\\000\\377end'" }, bgCtx(ws, 'bg_2_0_0'));
    expect(b.totalWritten).toBe(7);
    const bin = await runBg({ action: 'output', taskID: 'bg_2_0_0' }, ctx);
    expect(bin.data).toMatchObject({ binary: true, bytes: 7 });
    expect(bin.output).toContain('not UTF-8 text');
    expect(bin.output.endsWith('\n\nok\uFFFD\uFFFDend')).toBe(true);
  });

  it('keeps the report within 4 KiB however wide the tail decodes', () => {
    const receipt = {
      id: 'rcp_0000000000000000',
      command: 'x',
      interpreter: 'bash',
      exitPolicy: 'pipefail' as const,
      verdict: 'passed' as const,
      exitCode: 0,
      authority: 'authoritative' as const,
      limitations: Array.from({ length: 10 }, () => ({ kind: 'loop' as const, note: 'n'.repeat(400), remedy: 'r' })),
    };
    const report = buildReport({
      taskID: 'bg_1_0_0',
      command: 'c'.repeat(5000),
      state: 'exited',
      statusLine: 'Command exited with code 0.',
      receipt,
      totalWritten: 10_000,
      durationMs: 1234,
      tail: Buffer.alloc(2048, 0xff),
      remoteObserver: true,
    });
    expect(Buffer.byteLength(report, 'utf8')).toBeLessThanOrEqual(4096);
    expect(report).toContain('[verification rcp_0000000000000000] passed · exit 0');
    expect(report).toContain('Earlier output: bg {"action": "output", "taskID": "bg_1_0_0", "cursor": 0}');
  });
});
