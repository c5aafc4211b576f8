import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { alive, eventually, workspace } from './helpers.js';

const FIXTURE = fileURLToPath(new URL('./fixtures/run-one.ts', import.meta.url));

function readPid(path: string): number | null {
  try {
    const n = Number(readFileSync(path, 'utf8').trim());
    return n > 0 ? n : null;
  } catch {
    return null;
  }
}

describe("shell guard binds the command to Zuno's lifetime (SH4)", () => {
  it('when the Zuno process dies mid-command, the whole command group dies too', async () => {
    const ws = workspace();
    const zuno = spawn(
      process.execPath,
      ['--import', 'tsx', FIXTURE, ws, '(sleep 60 & echo $! > child.pid); echo $$ > shell.pid; sleep 60'],
      {
        stdio: 'ignore',
      },
    );
    try {
      expect(
        await eventually(
          () => readPid(join(ws, 'shell.pid')) !== null && readPid(join(ws, 'child.pid')) !== null,
          20_000,
        ),
      ).toBe(true);
      const shellPid = readPid(join(ws, 'shell.pid'))!;
      const childPid = readPid(join(ws, 'child.pid'))!;
      expect(alive(shellPid)).toBe(true);
      zuno.kill('SIGKILL');
      expect(await eventually(() => !alive(shellPid) && !alive(childPid), 5_000)).toBe(true);
    } finally {
      zuno.kill('SIGKILL');
    }
  });
});
