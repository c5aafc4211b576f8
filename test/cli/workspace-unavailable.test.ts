import { existsSync, renameSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { makeHome, runZuno, tempDir, useTestTemporal, writeJson, writeTree, type ZunoResult } from './helpers.js';

/**
 * Issue 33 through the CLI: a session whose workspace disappears on its host
 * pauses `workspace_unavailable`, and `zuno run`, `zuno session list` and
 * `zuno session show` say so in plain words; restored, `zuno session resume`
 * answers. Real CLI processes, real Temporal, real directories.
 */
const temporal = useTestTemporal();
const HOST = 'cli-host';

function sessionOf(r: ZunoResult): string {
  const m = /(ses_[0-9a-z]+)/.exec(r.stderr);
  if (!m) throw new Error(`no session id in: ${r.stderr}`);
  return m[1]!;
}

describe('a workspace missing on its host, as people see it', () => {
  it('run says paused and how to go on; list and show name it; resume after the restore answers', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-cli-ws-missing-');
    const gone = `${ws}.gone`;
    // Unconfined, so the model's first command can move the workspace itself away.
    writeTree(ws, { 'a.txt': 'alpha\n', 'zuno.json': JSON.stringify({ sandbox: { mode: 'danger-full-access' } }) });
    const scripts = tempDir('zuno-cli-scripts-');
    const script = writeJson(scripts, 'move.json', {
      replies: [
        {
          toolCalls: [
            { name: 'shell', arguments: { command: 'mv "$PWD" "$PWD.gone"' } },
            { name: 'read', arguments: { path: 'a.txt' } },
          ],
        },
      ],
    });
    const env = { ZUNO_HOST_ID: HOST };
    const run = await runZuno(['run', 'Read a.txt', '--script', script], { home, cwd: ws, env });
    expect(run.code, run.stderr).toBe(1);
    const id = sessionOf(run);
    const sentence = `the workspace ${ws} does not exist on host ${HOST}; restore it and run zuno session resume ${id}`;
    expect(run.stderr).toContain(`zuno: workspace_unavailable: session ${id} paused: ${sentence}\n`);
    expect(run.stderr).not.toContain('fix it, then resume');
    expect(existsSync(gone)).toBe(true);

    const list = await runZuno(['session', 'list'], { home, env });
    const line = list.stdout.split('\n').find((l) => l.startsWith(id))!;
    expect(line).toMatch(new RegExp(`^${id}\\s+paused \\(workspace_unavailable\\)\\s+.*\\s${HOST}\\s+${ws}\\s`));
    const json = JSON.parse((await runZuno(['session', 'list', '--json'], { home, env })).stdout);
    expect(json[0]).toMatchObject({ id, status: 'paused', host: HOST, workspace: ws });

    const show = await runZuno(['session', 'show', id], { home, env });
    expect(show.stdout).toContain(`turn 1 ended paused (workspace_unavailable): ${sentence}`);

    renameSync(gone, ws);
    // The resumed turn's model is served by a script of its own (a script starts at its first reply).
    const after = writeJson(scripts, 'after.json', { replies: [{ text: 'It says alpha.' }] });
    const resumed = await runZuno(['session', 'resume', id, '--script', after], { home, cwd: ws, env });
    expect({ code: resumed.code, out: resumed.stdout }, resumed.stderr).toEqual({ code: 0, out: 'It says alpha.\n' });
    expect(resumed.stderr).toContain('paused by workspace_unavailable');
    expect(JSON.parse((await runZuno(['session', 'list', '--json'], { home, env })).stdout)[0].status).toBe(
      'completed',
    );
    // The resumed session no longer shows the pause's error.
    const after2 = await runZuno(['session', 'show', id], { home, env });
    expect(after2.stdout).not.toMatch(/^error /m);
  }, 120_000);
});
