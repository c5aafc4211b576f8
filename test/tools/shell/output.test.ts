import { createHash } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { basename, join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { alive, body, eventually, sh, workspace } from './helpers.js';

const sha = (b: Buffer | string) => createHash('sha256').update(b).digest('hex');

describe('shell output caps (TD9)', () => {
  it('10 MB of output is withheld whole: exact bytes in the artifact, a notice inline, the receipt kept', async () => {
    const ws = workspace();
    const lines = 616_810; // 17 bytes each: 10 485 770 bytes
    const o = await sh(ws, `awk 'BEGIN { for (i = 0; i < ${lines}; i++) print "0123456789abcdef" }'`);
    const expected = Buffer.from('0123456789abcdef\n'.repeat(lines));
    expect(o.outcome).toBe('ok');
    expect(o.receipt).toMatchObject({ verdict: 'passed', exitCode: 0, authority: 'authoritative' });
    expect(o.outputBytes).toBe(expected.length);
    expect(o.outputLines).toBe(lines);
    const w = o.withheldOutput!;
    expect(w).toEqual({
      bytes: expected.length,
      lines,
      cap: 'max_bytes',
      artifactPath: w.artifactPath,
      sha256: sha(expected),
    });
    expect(o.outputPaths).toEqual([w.artifactPath]);
    expect(w.artifactPath.startsWith(join(ws, '.zuno', 'artifacts'))).toBe(true);
    expect(basename(w.artifactPath)).toMatch(/^shell-[0-9a-f]{12}-[0-9a-f]{12}\.out$/);
    const stored = readFileSync(w.artifactPath);
    expect(stored.length).toBe(expected.length);
    expect(sha(stored)).toBe(sha(expected));
    const text = body(o);
    expect(text).toContain(
      `Output withheld: ${expected.length} bytes in ${lines} lines exceeds tool_output.max_bytes (51200 bytes)`,
    );
    expect(text).toContain(w.artifactPath);
    expect(text).toContain('"action": "artifact"');
    expect(o.output.length).toBeLessThan(2_000);
    // only the artifact remains: the temporary capture file is gone
    expect(readdirSync(join(ws, '.zuno', 'artifacts'))).toEqual([basename(w.artifactPath)]);
  });

  it('over max_lines only: withheld with cap max_lines; accept_large_output returns it inline', async () => {
    const ws = workspace();
    const o = await sh(ws, 'seq 1 3000');
    expect(o.withheldOutput).toMatchObject({ cap: 'max_lines', lines: 3000 });
    expect(body(o)).toContain('exceeds tool_output.max_lines (2000 lines)');
    const inline = await sh(ws, 'seq 1 3000', { accept_large_output: true });
    expect(inline.withheldOutput).toBeUndefined();
    expect(inline.outputPaths).toEqual([]);
    const shown = body(inline);
    expect(shown.split('\n')).toHaveLength(3001);
    expect(shown.endsWith('2999\n3000\n')).toBe(true);
  });

  it('configurable caps: maxBytes / maxLines from tool_output', async () => {
    const o = await sh(workspace(), 'echo 0123456789', {}, { maxBytes: 5 });
    expect(o.withheldOutput).toMatchObject({ bytes: 11, cap: 'max_bytes' });
  });

  it('stdout and stderr are captured interleaved in order', async () => {
    const o = await sh(workspace(), 'echo one; echo two >&2; echo three');
    expect(body(o)).toBe('one\ntwo\nthree\n');
  });

  it('empty output shows (no output)', async () => {
    const o = await sh(workspace(), 'true');
    expect(body(o)).toBe('(no output)');
    expect(o.outputBytes).toBe(0);
  });

  it('binary output: shown lossily and marked, valid text, exact bytes kept in an artifact', async () => {
    const o = await sh(workspace(), "printf 'ok\\000\\377\\376\\n'");
    const raw = Buffer.from([0x6f, 0x6b, 0x00, 0xff, 0xfe, 0x0a]);
    expect(o.receipt.verdict).toBe('passed');
    expect(o.binaryOutput).toMatchObject({ nulBytes: 1 });
    expect(o.outputPaths).toEqual([o.binaryOutput!.artifactPath]);
    expect(readFileSync(o.binaryOutput!.artifactPath)).toEqual(raw);
    expect(o.binaryOutput!.sha256).toBe(sha(raw));
    const text = body(o);
    expect(text).toMatch(/^\[binary output: 6 bytes that are not plain UTF-8 text \(1 NUL byte\)/);
    expect(text).toContain('ok\uFFFD\uFFFD\uFFFD\n');
    expect(text).not.toContain('\0');
    expect(Buffer.from(o.output, 'utf8').toString('utf8')).toBe(o.output); // well-formed (no lone surrogates)
  });

  it('binary output over the cap is withheld as raw bytes', async () => {
    const o = await sh(workspace(), 'head -c 100000 /dev/urandom');
    expect(o.withheldOutput).toMatchObject({ bytes: 100_000, cap: 'max_bytes' });
    expect(readFileSync(o.withheldOutput!.artifactPath).length).toBe(100_000);
  });

  it('a withheld artifact is an independent copy: an escaped grandchild writing after the call ended changes nothing', async () => {
    const ws = workspace();
    const pidFile = join(ws, 'late.pid');
    const o = await sh(
      ws,
      // The call goes on only once the grandchild has started (under load it could otherwise start after the
      // sandbox of the ended call was torn down, and never write at all).
      `setsid bash -c 'echo $$ > ${pidFile}; sleep 2; echo LATE' & while [ ! -s ${pidFile} ]; do sleep 0.05; done; head -c 60000 /dev/zero | tr '\\0' x`,
    );
    const w = o.withheldOutput!;
    expect(w).toMatchObject({ bytes: 60_000, cap: 'max_bytes' });
    expect(w.sha256).toBe(sha('x'.repeat(60_000)));
    // the escaped grandchild still holds the capture file open; wait until it has written and exited
    // (generous bounds, returned from as soon as met: on a loaded 2-core machine the escaped grandchild may start
    // late — 10 s was not enough in a CI run at load 4.7)
    expect(await eventually(() => existsSync(pidFile) && readFileSync(pidFile, 'utf8').trim() !== '', 45_000)).toBe(
      true,
    );
    const pid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(await eventually(() => !alive(pid), 30_000)).toBe(true);
    const stored = readFileSync(w.artifactPath);
    expect(stored.length).toBe(60_000);
    expect(sha(stored)).toBe(w.sha256);
    expect(stored.includes('LATE')).toBe(false);
  }, 120_000);

  it('UTF-8 text stays as is', async () => {
    const o = await sh(workspace(), "printf 'h\\303\\251llo \\360\\237\\221\\213\\n'");
    expect(body(o)).toBe('héllo 👋\n');
    expect(o.binaryOutput).toBeUndefined();
  });
});
