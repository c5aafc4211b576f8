import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ZunoError } from '../../core/errors.js';
import { createRgLocator, parseRgVersion, RG_FAILURE_TTL_MS } from '../../activities/tools/rg.js';
import { runGlob } from '../../activities/tools/glob.js';
import { runGrep } from '../../activities/tools/grep.js';
import { REAL_RG, tempDir, writeScript, writeTree } from './helpers.js';

async function codeOf(p: Promise<unknown>): Promise<string> {
  try {
    await p;
    return 'ok';
  } catch (err) {
    expect(err).toBeInstanceOf(ZunoError);
    return (err as ZunoError).code;
  }
}

describe('rg discovery (SR1, SR6)', () => {
  it('finds the pinned real rg and requires >= 14', async () => {
    const loc = createRgLocator({ bin: REAL_RG });
    const info = await loc.resolve();
    expect(info.path).toBe(REAL_RG);
    expect(info.major).toBeGreaterThanOrEqual(14);
    expect(info.version).toMatch(/^\d+\.\d+\.\d+$/);
  });

  it('default discovery (no explicit bin) finds rg from the project .tools/bin or env', async () => {
    const info = await createRgLocator().resolve();
    expect(info.major).toBeGreaterThanOrEqual(14);
  });

  it('missing rg → rg_missing naming the path and the install command', async () => {
    const missing = join(tempDir(), 'no-such-rg');
    const err = (await createRgLocator({ bin: missing })
      .resolve()
      .catch((e: unknown) => e)) as ZunoError;
    expect(err).toBeInstanceOf(ZunoError);
    expect(err.code).toBe('rg_missing');
    expect(err.message).toContain(missing);
    expect(err.message).toContain('node scripts/setup-tools.mjs');
  });

  it('rg_missing also when nothing is configured and PATH/project have no rg', async () => {
    const err = (await createRgLocator({ projectRoot: tempDir(), env: { PATH: tempDir() } })
      .resolve()
      .catch((e: unknown) => e)) as ZunoError;
    expect(err.code).toBe('rg_missing');
  });

  it('an old rg (a real script printing `ripgrep 13.0.0`) → rg_too_old with path and version', async () => {
    const fake = writeScript(join(tempDir(), 'rg'), 'echo "ripgrep 13.0.0"; echo; echo "-SIMD -AVX (compiled)"');
    const err = (await createRgLocator({ bin: fake })
      .resolve()
      .catch((e: unknown) => e)) as ZunoError;
    expect(err.code).toBe('rg_too_old');
    expect(err.message).toContain(fake);
    expect(err.message).toContain('13.0.0');
    expect(err.message).toContain('node scripts/setup-tools.mjs');
  });

  it('glob and grep return the typed error as a tool result, never a fallback', async () => {
    const ws = tempDir();
    writeTree(ws, { 'a.txt': 'hello\n' });
    const fake = writeScript(join(tempDir(), 'rg'), 'echo "ripgrep 13.0.0"');
    const ctxOld = {
      workspace: ws,
      sessionId: 's',
      rowId: 'tc_1_0_0',
      callId: 'c',
      rg: createRgLocator({ bin: fake }),
    };
    const g = await runGlob({ pattern: '*.txt' }, ctxOld);
    expect(g).toMatchObject({ isError: true, errorCode: 'rg_too_old' });
    const ctxMissing = {
      workspace: ws,
      sessionId: 's',
      rowId: 'tc_1_0_0',
      callId: 'c',
      rg: createRgLocator({ bin: join(ws, 'nope') }),
    };
    const r = await runGrep({ pattern: 'hello' }, ctxMissing);
    expect(r).toMatchObject({ isError: true, errorCode: 'rg_missing' });
    expect(r.output).toContain('node scripts/setup-tools.mjs');
  });

  it('parses version output', () => {
    expect(parseRgVersion('ripgrep 14.1.0\n\nfeatures:-pcre2')).toEqual({ version: '14.1.0', major: 14 });
    expect(parseRgVersion('ripgrep 15.0.0-dev (rev abc)')).toEqual({ version: '15.0.0', major: 15 });
    expect(parseRgVersion('grep (GNU grep) 3.8')).toBeNull();
  });

  it('caches a failure for the TTL (injected clock), then probes again', async () => {
    const dir = tempDir();
    const bin = join(dir, 'rg');
    let t = 1_000_000;
    const loc = createRgLocator({ bin, now: () => t });
    expect(RG_FAILURE_TTL_MS).toBe(5_000);
    expect(await codeOf(loc.resolve())).toBe('rg_missing');
    expect(loc.probes).toBe(1);
    // rg gets installed mid-session…
    writeScript(bin, 'echo "ripgrep 14.1.0"');
    t += 4_999;
    expect(await codeOf(loc.resolve())).toBe('rg_missing'); // still the cached failure
    expect(loc.probes).toBe(1);
    t += 2; // past 5 s
    expect(await codeOf(loc.resolve())).toBe('ok');
    expect(loc.probes).toBe(2);
  });

  it('the TTL is injectable', async () => {
    let t = 0;
    const loc = createRgLocator({ bin: join(tempDir(), 'rg'), failureTtlMs: 100, now: () => t });
    await codeOf(loc.resolve());
    t = 99;
    await codeOf(loc.resolve());
    expect(loc.probes).toBe(1);
    t = 100;
    await codeOf(loc.resolve());
    expect(loc.probes).toBe(2);
  });

  it('caches success for the process lifetime', async () => {
    const dir = tempDir();
    const bin = writeScript(join(dir, 'rg'), 'echo "ripgrep 14.1.0"');
    let t = 0;
    const loc = createRgLocator({ bin, now: () => t });
    expect(await codeOf(loc.resolve())).toBe('ok');
    rmSync(bin);
    t += 10 * 60_000;
    expect((await loc.resolve()).version).toBe('14.1.0');
    expect(loc.probes).toBe(1);
  });

  it('concurrent first callers share one probe', async () => {
    const dir = tempDir();
    const counter = join(dir, 'count');
    const bin = writeScript(join(dir, 'rg'), `echo x >> '${counter}'; sleep 0.2; echo "ripgrep 14.1.0"`);
    const loc = createRgLocator({ bin });
    const all = await Promise.all(Array.from({ length: 8 }, () => loc.resolve()));
    expect(new Set(all.map((i) => i.path))).toEqual(new Set([bin]));
    expect(loc.probes).toBe(1);
    expect(readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('concurrent callers share one failing probe too', async () => {
    const dir = tempDir();
    const counter = join(dir, 'count');
    const bin = writeScript(join(dir, 'rg'), `echo x >> '${counter}'; sleep 0.2; echo "ripgrep 12.0.0"`);
    const loc = createRgLocator({ bin });
    const codes = await Promise.all(Array.from({ length: 5 }, () => codeOf(loc.resolve())));
    expect(codes).toEqual(Array(5).fill('rg_too_old'));
    expect(readFileSync(counter, 'utf8').trim().split('\n')).toHaveLength(1);
  });

  it('a crashing probe is reported but does not poison the cache', async () => {
    const dir = tempDir();
    // A real executable that dies by a signal on --version.
    const bin = writeScript(join(dir, 'rg'), 'kill -SEGV $$');
    const t = 0;
    const loc = createRgLocator({ bin, now: () => t });
    expect(await codeOf(loc.resolve())).toBe('rg_probe_failed');
    // Same instant (a failure would still be cached): the crash was not cached, so it re-probes.
    writeScript(bin, 'echo "ripgrep 14.1.0"');
    expect(await codeOf(loc.resolve())).toBe('ok');
    expect(loc.probes).toBe(2);
  });

  it('a probe that exits non-zero is a crash, not a cached failure', async () => {
    const dir = tempDir();
    const bin = writeScript(join(dir, 'rg'), 'exit 3');
    const loc = createRgLocator({ bin, now: () => 0 });
    expect(await codeOf(loc.resolve())).toBe('rg_probe_failed');
    writeScript(bin, 'echo "ripgrep 14.0.1"');
    expect((await loc.resolve()).version).toBe('14.0.1');
  });

  it('reset() forgets the cache', async () => {
    const dir = tempDir();
    const bin = join(dir, 'rg');
    const loc = createRgLocator({ bin, now: () => 0 });
    expect(await codeOf(loc.resolve())).toBe('rg_missing');
    writeScript(bin, 'echo "ripgrep 14.1.0"');
    loc.reset();
    expect(await codeOf(loc.resolve())).toBe('ok');
  });
});
