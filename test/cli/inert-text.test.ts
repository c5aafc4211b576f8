import { beforeAll, describe, expect, inject, it } from 'vitest';
import { makeHome, makeWorkspace, runZuno, tempDir, writeJson } from './helpers.js';

/**
 * Model text is inert on the terminal (issue 26 item 8): a child session
 * whose objective holds escape sequences and newlines is listed and shown
 * with them escaped, the parent's answer and tool arguments too; an
 * objective made only of control characters is refused `invalid_arguments`.
 * Real CLI, real dev server, scripted provider (parent and child threads).
 */
let address: string;
beforeAll(() => {
  address = inject('temporalAddress');
});

const ESC = '\x1b';
const BEL = '\x07';
/** Clears the screen, sets the window title, then a second line. */
const OBJECTIVE = `Clear ${ESC}[2J${ESC}]0;pwned${BEL} the screen\nsecond line`;
// eslint-disable-next-line no-control-regex -- the point: no raw control character but LF reaches the output
const RAW_CONTROL = /[\x00-\x09\x0b-\x1f\x7f-\x9f]/;

const task = (objective: string) => ({
  name: 'task',
  arguments: { agent: 'explore', objective, deliverable: 'a line', instructions: 'look', success_evidence: 'a line' },
});

describe('model text on the terminal', () => {
  it('is escaped in run, session list and session show; a control-only objective is refused', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-cli-inert-'), 'script.json', {
      replies: [
        { toolCalls: [task(`${ESC}${BEL}\x01 \x02`)] },
        { toolCalls: [task(OBJECTIVE)] },
        { text: `done ${ESC}[31mred${ESC}[0m ${ESC}]0;title${BEL}` },
      ],
      threads: [{ match: 'the screen', replies: [{ text: `child says ${ESC}[2J hi` }] }],
    });
    const r = await runZuno(['run', 'Delegate it', '--dir', ws, '--script', script], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 0, timedOut: false });
    expect(r.stdout).toBe('done \\e[31mred\\e[0m \\e]0;title\\u0007\n');
    expect(r.stderr).not.toMatch(RAW_CONTROL);
    expect(r.stderr).toMatch(/✗ task blocked \(invalid_arguments\):.*objective has no printable character/);
    const parentId = /session (ses_[0-9a-z]+) started/.exec(r.stderr)![1]!;

    const list = await runZuno(['session', 'list', '--dir', ws], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).not.toMatch(RAW_CONTROL);
    const childLine = list.stdout.split('\n').find((l) => l.includes('explore: Clear'));
    expect(childLine, list.stdout).toContain('explore: Clear \\e[2J\\e]0;pwned\\u0007 the screen');

    const listJson = await runZuno(['session', 'list', '--dir', ws, '--json'], { home });
    const rows = JSON.parse(listJson.stdout) as { id: string; title: string | null; parentSessionId: string | null }[];
    const child = rows.find((s) => s.parentSessionId === parentId);
    expect(child?.title, listJson.stdout).toBe('explore: Clear \\e[2J\\e]0;pwned\\u0007 the screen second line');

    for (const id of [parentId, child!.id]) {
      const show = await runZuno(['session', 'show', id, '--full'], { home });
      expect(show.code, show.stderr).toBe(0);
      expect(show.stdout, id).not.toMatch(RAW_CONTROL);
      expect(show.stdout, id).toContain('\\e[2J');
    }
  }, 120_000);
});
