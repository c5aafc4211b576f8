import { existsSync, mkdirSync, mkdtempSync, readdirSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runBackground } from '../../activities/tools/bg/index.js';
import { defaultArtifactDir, runShell } from '../../activities/tools/shell/index.js';

describe("Zuno's state directories inside a workspace are real directories", () => {
  it('a .zuno planted as a symlink to outside: shell runs nothing and writes nothing outside; bg does not start', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'zuno-statedir-'));
    const outside = mkdtempSync(join(tmpdir(), 'zuno-statedir-outside-'));
    symlinkSync(outside, join(ws, '.zuno'));
    const shell = await runShell(
      { command: 'touch ran.txt; seq 1 30000' },
      { workspace: ws, sessionId: 'ses_sd', rowId: 'tc_1_0_0', callId: 'call_1', artifactDir: defaultArtifactDir(ws) },
    );
    expect(shell.outcome).toBe('error');
    expect(shell.errorCode).toBe('output_capture_failed');
    expect(shell.output).toContain('.zuno is a symlink');
    expect(existsSync(join(ws, 'ran.txt'))).toBe(false);
    const bg = await runBackground(
      { command: 'touch bg-ran.txt' },
      { workspace: ws, sessionId: 'ses_sd', rowId: 'tc_1_0_0', callId: 'call_2', taskID: 'bg_0_0_0' },
    );
    expect(bg.state).toBe('not_started');
    expect(bg.report).toContain('.zuno is a symlink');
    expect(existsSync(join(ws, 'bg-ran.txt'))).toBe(false);
    expect(readdirSync(outside)).toEqual([]);
  });

  it('missing directories are created as real ones', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'zuno-statedir-new-'));
    mkdirSync(join(ws, 'src'));
    const shell = await runShell(
      { command: 'seq 1 30000' },
      { workspace: ws, sessionId: 'ses_sd', rowId: 'tc_1_0_0', callId: 'call_3', artifactDir: defaultArtifactDir(ws) },
    );
    expect(shell.outcome).toBe('ok');
    expect(shell.withheldOutput).toBeDefined();
    expect(existsSync(join(ws, '.zuno', 'artifacts'))).toBe(true);
  });
});
