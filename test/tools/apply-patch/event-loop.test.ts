import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { applyPatch, parsePatch, type PatchCredential } from '../../../activities/tools/apply-patch/index.js';
import { runWrite } from '../../../activities/tools/write.js';
import { bigPatchCase, CredentialStore, tempDir } from './helpers.js';

/**
 * Watches the event loop while a tool computes on a big file (issue 25,
 * item 7: the activity's heartbeat is a timer, and a timer only fires when
 * the event loop is free).
 *
 * The window opens at the tool's first credential lookup — the last step
 * before the pure work (decode, match, encode, diff, hash) — and closes when
 * the first temp file appears next to the target (publishing began). Before
 * the fix that window was one synchronous block: the loop got its turns only
 * in the few awaits of publishing at its end. A 1 ms interval notes the time
 * of every turn it gets; the result is the number of turns and the longest
 * stretch without one, next to the window's length. Ratios only: how fast
 * the machine is, or how loaded, changes the lengths, not their proportion.
 */
function loopDuringWork(ws: string, target: string) {
  let openedAt: number | undefined;
  let closedAt: number | undefined;
  let last = 0;
  let longest = 0;
  let ticks = 0;
  const timer = setInterval(() => {
    if (openedAt === undefined || closedAt !== undefined) return;
    const now = performance.now();
    longest = Math.max(longest, now - last);
    last = now;
    if (readdirSync(ws).some((n) => n !== target)) closedAt = now;
    else ticks++;
  }, 1);
  return {
    /** Wraps a credential lookup so its first call opens the window. */
    watch<T>(lookup: (p: string) => T): (p: string) => T {
      return (p) => {
        if (openedAt === undefined) openedAt = last = performance.now();
        return lookup(p);
      };
    },
    /** Stops watching: turns inside the window, the longest stretch without a turn and the window's length (ms). */
    stop(): { ticks: number; longest: number; window: number } {
      clearInterval(timer);
      const end = closedAt ?? performance.now();
      return { ticks, longest: Math.max(longest, end - last), window: end - (openedAt ?? end) };
    },
  };
}

/**
 * The loop was handed back again and again: several turns, and no stretch
 * without one as long as a third of the work (before the fix the longest
 * stretch was nearly the whole window).
 */
function expectLoopFree(seen: { ticks: number; longest: number; window: number }): void {
  const what = JSON.stringify(seen);
  expect(seen.ticks, what).toBeGreaterThanOrEqual(3);
  expect(seen.longest, what).toBeLessThan(seen.window / 3);
}

describe('big files keep the event loop free (issue 25, item 7)', () => {
  it('applyPatch yields while it decodes, matches, encodes, diffs and hashes a big file', async () => {
    const ws = tempDir();
    // ~1 M short lines, 20 hunks matched at the loosest level: seconds of work before the fix.
    const c = bigPatchCase('big.txt', 8, 20, true);
    writeFileSync(join(ws, 'big.txt'), c.content);
    const store = await new CredentialStore().read(ws, 'big.txt');
    const counter = loopDuringWork(ws, 'big.txt');
    const lookup = counter.watch<PatchCredential | undefined>(store.lookup);
    const r = await applyPatch(parsePatch(c.patch), { workspace: ws, credentials: lookup });
    const seen = counter.stop();
    expect(r.status, JSON.stringify(r).slice(0, 500)).toBe('applied');
    const after = readFileSync(join(ws, 'big.txt'), 'utf8').split('\n');
    expect(after).toHaveLength(c.lineCount + 1);
    for (const k of c.changed) expect(after[k]).toBe(`l${k} - x changed`);
    expectLoopFree(seen);
  }, 120_000);

  it('write yields while it hashes, decodes and diffs a big replacement', async () => {
    const ws = tempDir();
    const c = bigPatchCase('big.txt', 8, 0);
    writeFileSync(join(ws, 'big.txt'), c.content);
    const store = await new CredentialStore().read(ws, 'big.txt');
    const lines = c.content.toString('utf8').split('\n');
    const k = Math.floor(lines.length / 2);
    lines[k] = `${lines[k]} changed`;
    const content = lines.join('\n');
    const counter = loopDuringWork(ws, 'big.txt');
    const r = await runWrite({ path: 'big.txt', content }, { workspace: ws, credentials: counter.watch(store.lookup) });
    const seen = counter.stop();
    expect(r.isError, r.output).toBe(false);
    expect(readFileSync(join(ws, 'big.txt'), 'utf8')).toBe(content);
    expect(r.data!.diff).toContain(`\n+l${k} - x changed\n`);
    expectLoopFree(seen);
  }, 120_000);
});
