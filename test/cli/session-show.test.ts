/**
 * `zuno session show` end to end, for people: a real `zuno run` (scripted
 * model, real tools, Temporal dev server of the global setup) that reads and
 * patches a file and answers at length, then the human view — turns from 1,
 * the patch as the diff it applied, no internal ids, the long answer cut at a
 * sentence with a note — and `--full`, and `--json` still as stored.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import type { Transcript } from '../../activities/projection/types.js';
import { expectTypedFailure, makeHome, makeWorkspace, parseNdjson, runZuno, tempDir, writeJson } from './helpers.js';

const PATCH = [
  '*** Begin Patch',
  '*** Update File: src/a.ts',
  '@@',
  '-export const a = 1; // TODO: rename',
  '+export const renamed = 1;',
  '*** End Patch',
].join('\n');
const FINAL = Array.from(
  { length: 40 },
  (_, i) => `Step ${i + 1} of the explanation says what changed in src/a.ts and why.`,
).join(' ');

let home: string;
let ws: string;
let sessionId: string;

beforeAll(async () => {
  const address = inject('temporalAddress');
  ({ home } = makeHome({ address }));
  ws = makeWorkspace();
  const script = writeJson(tempDir('zuno-show-script-'), 'script.json', {
    replies: [
      { text: 'Reading it first.', toolCalls: [{ name: 'read', arguments: { path: 'src/a.ts' } }] },
      { toolCalls: [{ name: 'apply_patch', arguments: { patch: PATCH } }] },
      { text: FINAL },
    ],
  });
  const r = await runZuno(['run', 'rename a', '--dir', ws, '--script', script, '--json'], {
    home,
    env: { TEMPORAL_ADDRESS: address },
  });
  expect(r.code, r.stderr).toBe(0);
  sessionId = parseNdjson(r.stdout).at(-1)!.sessionId as string;
  expect(readFileSync(join(ws, 'src/a.ts'), 'utf8')).toBe('export const renamed = 1;\n');
});

describe('zuno session show (human view)', () => {
  it('counts turns from 1, shows the patch as its diff and prints no internal ids', async () => {
    const show = await runZuno(['session', 'show', sessionId], { home });
    expect(show.code, show.stderr).toBe(0);
    const lines = show.stdout.split('\n');
    expect(lines.filter((l) => l.startsWith('── '))).toEqual([
      '── turn 1, step 1',
      '── turn 1, step 2',
      '── turn 1, step 3',
    ]);
    expect(lines).toContain('you: rename a');
    const patch = lines.indexOf('tool apply_patch: src/a.ts → ok');
    expect(patch, show.stdout).toBeGreaterThan(0);
    expect(lines.slice(patch + 1, patch + 6)).toEqual([
      '  --- a/src/a.ts',
      '  +++ b/src/a.ts',
      '  @@ -1 +1 @@',
      '  -export const a = 1; // TODO: rename',
      '  +export const renamed = 1;',
    ]);
    expect(show.stdout).not.toMatch(/\b(in_\d|tc_\d|call_\d|prt_\d|msg_\d)|turn 0|step 0|"patch"|\\n/);
    expect(show.stdout).not.toContain('\x1b['); // a pipe gets no colours
  });

  it('cuts the long final text at a sentence with a note; --full prints it whole', async () => {
    const cut = await runZuno(['session', 'show', sessionId], { home });
    const finalLine = cut.stdout.split('\n').find((l) => l.startsWith('final: '))!;
    expect(finalLine).toMatch(/^final: Step 1 of the explanation .* and why\.$/);
    expect(finalLine.length).toBeLessThan(`final: ${FINAL}`.length);
    expect(cut.stdout).toMatch(
      new RegExp(`^ {2}… \\([\\d,]+ more characters; zuno session show ${sessionId} --full shows everything\\)$`, 'm'),
    );

    const full = await runZuno(['session', 'show', sessionId, '--full'], { home });
    expect(full.code, full.stderr).toBe(0);
    expect(full.stdout.split('\n')).toContain(`final: ${FINAL}`);
    expect(full.stdout).not.toContain('--full shows everything');
  });

  it('--json keeps the stored rows: 0-based turns and ids', async () => {
    const json = await runZuno(['session', 'show', sessionId, '--json', '--full'], { home });
    const t = JSON.parse(json.stdout) as Transcript;
    expect(t.inputs[0]).toMatchObject({ id: 'in_0', admission: 'driven' });
    expect(t.toolCalls.map((c) => [c.id, c.callId, c.turn, c.step])).toEqual([
      ['tc_0_0_2', 'call_0_0', 0, 0],
      ['tc_0_1_0', 'call_1_0', 0, 1],
    ]);
    expect(t.toolCalls[1]!.argsJson).toBe(JSON.stringify({ patch: PATCH }));
    expect(t.session.finalText).toBe(FINAL);
  });
});

describe('zuno session show --prompt (issue 32, SE9)', () => {
  it('prints the system segments a request carried, rebuilt from its stored receipt and texts', async () => {
    const last = await runZuno(['session', 'show', sessionId, '--prompt'], { home });
    expect(last.code, last.stderr).toBe(0);
    expect(last.stdout).toMatch(new RegExp(`^System prompt of session ${sessionId}, request 0\\.2 \\(attempt 1\\)`));
    expect(last.stdout).toContain('── 1. system.base · prompts/base.md · ');
    const json = await runZuno(['session', 'show', sessionId, '--prompt', '0.0', '--json'], { home });
    expect(json.code, json.stderr).toBe(0);
    const p = JSON.parse(json.stdout) as { step: number; tools: string[]; segments: { id: string; text: string }[] };
    expect(p.step).toBe(0);
    expect(p.tools).toContain('apply_patch');
    expect(p.segments.map((s) => s.id).slice(0, 1)).toEqual(['system.base']);
    for (const s of p.segments) expect(s.text).toEqual(expect.any(String));
    expect(p.segments.find((s) => s.id === 'runtime.environment')!.text).toContain(`- Workspace: ${ws}`);
  });

  it('refuses a malformed request and names a missing one', async () => {
    const bad = await runZuno(['session', 'show', sessionId, '--prompt', 'last'], { home });
    expect(expectTypedFailure(bad, 'input_invalid')).toContain('TURN.STEP');
    const missing = await runZuno(['session', 'show', sessionId, '--prompt', '9.9'], { home });
    expect(expectTypedFailure(missing, 'prompt_not_found')).toContain(
      'has no stored prompt for request 9.9; stored: 0.0, 0.1, 0.2',
    );
    const none = await runZuno(['session', 'show', 'ses_0000000000000000', '--prompt'], { home });
    expect(expectTypedFailure(none, 'session_not_found')).toContain('no session ses_0000000000000000');
  });
});
