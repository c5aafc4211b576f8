import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { makeHome, tempDir, useTestTemporal, writeJson, ZUNO_BIN } from './helpers.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Issue 11 Must show: `zuno run` on a terminal answers an approval prompt end
 * to end. The real launcher runs in a tmux pane (a real pseudo-terminal);
 * the test reads the pane and types the answers.
 */
const temporal = useTestTemporal();
const tmuxSessions: string[] = [];
afterAll(() => {
  for (const s of tmuxSessions) {
    try {
      execFileSync('tmux', ['kill-session', '-t', s]);
    } catch {
      // already gone
    }
  }
});

function pane(name: string): string {
  return execFileSync('tmux', ['capture-pane', '-p', '-J', '-S', '-200', '-t', name], { encoding: 'utf8' });
}

const shq = (s: string) => `'${s.replace(/'/g, `'\\''`)}'`;

/** tmux provides the pseudo-terminal; set-up installs it with the other Debian packages where it can. */
const hasTmux = (() => {
  try {
    execFileSync('tmux', ['-V']);
    return true;
  } catch {
    return false;
  }
})();

it.skipIf(!hasTmux)(
  'prompts on the terminal; "n" with a reason denies; "y" approves the next call once',
  async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = tempDir('zuno-tty-ws-');
    writeJson(ws, 'zuno.json', { permission: { rules: { shell: 'ask' } } });
    const script = writeJson(ws, 'script.json', {
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'shell', arguments: { command: 'echo first >> runs.txt' } }] },
        { toolCalls: [{ id: 'call_2', name: 'shell', arguments: { command: 'echo second >> runs.txt' } }] },
        { text: 'One refused, one ran.' },
      ],
    });
    const name = `zuno-tty-${process.pid}-${Date.now()}`;
    tmuxSessions.push(name);
    const codeFile = join(home, 'exit-code');
    const cmd =
      `env -u ZUNO_HOST_ID ZUNO_HOME=${shq(home)} ${shq(process.execPath)} ${shq(ZUNO_BIN)} run --dir ${shq(ws)} ` +
      `--script ${shq(script)} 'record two runs'; echo $? > ${shq(codeFile)}; sleep 600`;
    execFileSync('tmux', ['new-session', '-d', '-s', name, '-x', '220', '-y', '60', 'sh', '-c', cmd]);

    await waitFor(async () => pane(name).includes('Allow?'), 60_000, 'the first approval prompt').catch((err) => {
      throw new Error(`${(err as Error).message}; the terminal shows:\n${pane(name)}`);
    });
    expect(pane(name)).toContain('Zuno wants to run shell: echo first');
    execFileSync('tmux', ['send-keys', '-t', name, 'n', 'Enter']);
    await waitFor(async () => pane(name).includes('Reason for the model'), 10_000, 'the reason prompt');
    execFileSync('tmux', ['send-keys', '-t', name, 'not the first one', 'Enter']);
    await waitFor(async () => pane(name).includes('echo second'), 30_000, 'the second approval prompt');
    execFileSync('tmux', ['send-keys', '-t', name, 'y', 'Enter']);

    await waitFor(async () => existsSync(codeFile), 60_000, 'zuno run to exit');
    const screen = pane(name);
    expect(readFileSync(codeFile, 'utf8').trim()).toBe('0');
    expect(screen).toContain('One refused, one ran.');
    expect(screen).toMatch(/denied/);
    expect(screen).toMatch(/approved once/);
    expect(readFileSync(join(ws, 'runs.txt'), 'utf8')).toBe('second\n');
  },
  120_000,
);
