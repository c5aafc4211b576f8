import { execFileSync } from 'node:child_process';
import { mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBackground, runBg } from '../../../activities/tools/bg/index.js';
import { runShell } from '../../../activities/tools/shell/index.js';
import { BG_DEFAULT_LIMIT, BG_MAX_LIMIT } from '../../../core/tools/bg.js';
import { bgCtx, expectedLines, numberedLines, toolCtx, workspace } from './helpers.js';

function bodyOf(output: string): Buffer {
  return Buffer.from(output.slice(output.indexOf('\n\n') + 2), 'utf8');
}

describe('bg artifact (BG1, BG3, BG4, TD9)', () => {
  it('reads a real withheld shell artifact from byte 0 and pages it back byte for byte', async () => {
    const ws = workspace();
    const expected = expectedLines(10_000); // 140000 bytes > 51200: withheld
    const shell = await runShell(
      { command: numberedLines(10_000) },
      {
        workspace: ws,
        sessionId: 'ses_bg_test',
        rowId: 'tc_1_0_0',
        callId: 'call_art',
        artifactDir: join(ws, '.zuno', 'artifacts'),
      },
    );
    const artifactPath = shell.withheldOutput!.artifactPath;
    expect(shell.output).toContain(`bg {"action": "artifact", "outputPath": ${JSON.stringify(artifactPath)}}`);
    const ctx = toolCtx(ws);

    const first = await runBg({ action: 'artifact', outputPath: artifactPath }, ctx);
    expect(first.isError).toBe(false);
    expect(first.data).toMatchObject({
      cursor: 0,
      windowFrom: 0,
      hasEarlier: false,
      nextCursor: BG_DEFAULT_LIMIT,
      hasMore: true,
      totalWritten: expected.length,
      fromDisk: true,
      bytes: BG_DEFAULT_LIMIT,
    });
    expect(first.output.startsWith(`Artifact ${artifactPath} (${expected.length} bytes).`)).toBe(true);
    expect(bodyOf(first.output).equals(expected.subarray(0, BG_DEFAULT_LIMIT))).toBe(true);

    const pages: Buffer[] = [];
    let cursor: number | undefined;
    for (;;) {
      const r = await runBg(
        {
          action: 'artifact',
          outputPath: relative(ws, artifactPath),
          ...(cursor !== undefined ? { cursor } : {}),
          limit: 10 ** 9,
        },
        ctx,
      );
      const d = r.data as { nextCursor: number; hasMore: boolean; limit: number };
      expect(d.limit).toBe(BG_MAX_LIMIT);
      pages.push(bodyOf(r.output));
      cursor = d.nextCursor;
      if (!d.hasMore) break;
    }
    expect(pages).toHaveLength(Math.ceil(expected.length / BG_MAX_LIMIT));
    expect(Buffer.concat(pages).equals(expected)).toBe(true);
    expect(readFileSync(artifactPath).equals(expected)).toBe(true);

    const beyond = await runBg({ action: 'artifact', outputPath: artifactPath, cursor: expected.length + 5 }, ctx);
    expect(beyond).toMatchObject({
      isError: true,
      errorCode: 'cursor_out_of_range',
      data: { totalWritten: expected.length },
    });
    expect(beyond.output).toContain(`${expected.length} bytes`);
  });

  it("reads a background task's output file as an artifact", async () => {
    const ws = workspace();
    const c = await runBackground({ command: 'echo from-task' }, bgCtx(ws, 'bg_1_0_0'));
    const r = await runBg({ action: 'artifact', outputPath: c.outputPath }, toolCtx(ws));
    expect(r.isError).toBe(false);
    expect(r.output.endsWith('\n\nfrom-task\n')).toBe(true);
  });

  it('refuses paths outside .zuno/artifacts and task outputs, `..`, and symlink escapes', async () => {
    const ws = workspace();
    const outside = workspace();
    writeFileSync(join(outside, 'secret'), 'secret\n');
    const arts = join(ws, '.zuno', 'artifacts');
    mkdirSync(arts, { recursive: true });
    writeFileSync(join(ws, 'plain.txt'), 'plain\n');
    symlinkSync(join(outside, 'secret'), join(arts, 'escape.out'));
    symlinkSync(outside, join(arts, 'dir'));
    symlinkSync('/etc/passwd', join(arts, 'passwd.out'));
    const ctx = toolCtx(ws);
    const cases = [
      '../x',
      '/etc/passwd',
      '.zuno/artifacts/../../plain.txt',
      join(arts, '..', '..', 'plain.txt'),
      'plain.txt',
      join(ws, 'plain.txt'),
      '.zuno/artifacts',
      '.zuno/artifacts/escape.out',
      '.zuno/artifacts/dir/secret',
      join(arts, 'passwd.out'),
      '.zuno/bg/0123456789abcdef/bg_1_0_0/status.json',
    ];
    for (const outputPath of cases) {
      const r = await runBg({ action: 'artifact', outputPath }, ctx);
      expect({ outputPath, code: r.errorCode }).toEqual({ outputPath, code: 'artifact_path_refused' });
      expect(r.output).not.toContain('secret\n');
      expect(r.output).not.toContain('root:');
    }
    const missing = await runBg({ action: 'artifact', outputPath: '.zuno/artifacts/none.out' }, ctx);
    expect(missing).toMatchObject({ isError: true, errorCode: 'not_found' });
  });

  it('refuses everything when .zuno/artifacts itself is a symlink out of the workspace', async () => {
    const ws = workspace();
    const outside = workspace();
    writeFileSync(join(outside, 'x.out'), 'outside\n');
    mkdirSync(join(ws, '.zuno'));
    symlinkSync(outside, join(ws, '.zuno', 'artifacts'));
    const r = await runBg({ action: 'artifact', outputPath: '.zuno/artifacts/x.out' }, toolCtx(ws));
    expect(r).toMatchObject({ isError: true, errorCode: 'artifact_path_refused' });
  });

  it("refuses a FIFO under .zuno/artifacts without blocking, and another session's task output", async () => {
    const ws = workspace();
    mkdirSync(join(ws, '.zuno', 'artifacts'), { recursive: true });
    execFileSync('mkfifo', [join(ws, '.zuno', 'artifacts', 'fifo.out')]);
    const fifo = await runBg({ action: 'artifact', outputPath: '.zuno/artifacts/fifo.out' }, toolCtx(ws));
    expect(fifo).toMatchObject({ isError: true, errorCode: 'not_a_file' });
    // A task of session A is readable by A and refused to B.
    const mine = toolCtx(ws);
    const done = await runBackground({ command: 'echo mine' }, { ...bgCtx(ws, 'bg_7_0_0'), sessionId: mine.sessionId });
    expect(done.state).toBe('exited');
    const rel = relative(ws, done.outputPath);
    expect((await runBg({ action: 'artifact', outputPath: rel }, mine)).isError).toBe(false);
    const other = await runBg({ action: 'artifact', outputPath: rel }, { ...mine, sessionId: 'ses_someone_else' });
    expect(other).toMatchObject({ isError: true, errorCode: 'artifact_path_refused' });
  });
});
