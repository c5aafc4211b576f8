/**
 * The human view of `zuno session show` on stored rows (no Temporal, no
 * database: the rendering is pure): turns and steps counted from 1, no
 * internal ids, readable arguments, recorded diffs, cuts at a boundary with
 * a note unless `--full`, colours only when asked. The end-to-end run is in
 * session-show.test.ts.
 */
import { describe, expect, it } from 'vitest';
import type { InputRow, PartRow, ToolCallRow, Transcript } from '../../activities/projection/types.js';
import { describeInterrupt } from '../../client/commands/session-interrupt.js';
import { renderBackground, renderTranscript } from '../../client/commands/session-show.js';
import { cutLines, cutProse, omissionNote, type ShowView } from '../../client/commands/show-text.js';

const SID = 'ses_view';
const view = (over: Partial<ShowView> = {}): ShowView => ({ sessionId: SID, full: false, color: false, ...over });

const PATCH = [
  '*** Begin Patch',
  '*** Update File: src/a.ts',
  '@@',
  '-export const a = 1;',
  '+export const renamed = 1;',
  '*** End Patch',
].join('\n');
const DIFF =
  '--- a/src/a.ts\n+++ b/src/a.ts\n@@ -1,2 +1,2 @@\n-export const a = 1;\n+export const renamed = 1;\n export const b = 2;\n';
const LONG_FINAL = Array.from({ length: 30 }, (_, i) => `Sentence ${i + 1} says what changed and why.`).join(' ');

function input(n: number, over: Partial<InputRow> = {}): InputRow {
  return {
    id: `in_${n}`,
    sessionId: SID,
    text: `input text ${n}`,
    admission: 'driven',
    state: 'completed',
    admittedAtMs: n,
    updatedAtMs: n,
    ...over,
  };
}

function call(step: number, position: number, over: Partial<ToolCallRow>): ToolCallRow {
  return {
    id: `tc_0_${step}_${position}`,
    sessionId: SID,
    turn: 0,
    step,
    position,
    callId: `call_${step}_0`,
    tool: 'read',
    argsJson: '{}',
    status: 'completed',
    outcome: 'ok',
    ...over,
  };
}

function part(turn: number, step: number, position: number, over: Partial<PartRow>): PartRow {
  return {
    id: `prt_${turn}_${step}_${position}_${over.kind ?? 'text'}`,
    sessionId: SID,
    messageId: `msg_${turn}_${step}_assistant`,
    turn,
    step,
    position,
    kind: 'text',
    createdAtMs: 0,
    ...over,
  };
}

/** One turn: the person's input, an applied patch, a refused patch, a steering input, a long answer; a queued input. */
function transcript(): Transcript {
  const applied = call(0, 1, {
    tool: 'apply_patch',
    argsJson: JSON.stringify({ patch: PATCH }),
    output: 'Success. Updated the following files:\nM src/a.ts',
    result: { changes: [{ path: 'src/a.ts', op: 'update', diff: DIFF, fuzz: 0 }] },
  });
  const refused = call(1, 0, {
    tool: 'apply_patch',
    argsJson: JSON.stringify({ patch: PATCH }),
    outcome: 'error',
    errorCode: 'ReadRequired',
    output: 'ReadRequired: src/a.ts has not been read in this session; nothing was changed.',
    result: { status: 'conflict', conflict: 'ReadRequired' },
  });
  const shell = call(1, 1, {
    tool: 'shell',
    argsJson: JSON.stringify({ command: 'npm test\necho done' }),
    output: 'Command exited with code 1.\n',
    result: {
      receipt: { id: 'rcp_0123456789abcdef', verdict: 'failed', exitCode: 1, authority: 'authoritative' },
      facts: { failed: true, exitCode: 1 },
    },
  });
  return {
    session: {
      id: SID,
      workflowId: `session/${SID}`,
      workspace: '/ws',
      provider: 'local',
      model: 'scripted',
      status: 'completed',
      finalText: LONG_FINAL,
      createdAtMs: 0,
      updatedAtMs: 0,
    },
    inputs: [
      input(0),
      input(1, { admission: 'steered', text: 'also rename b' }),
      input(2, { admission: 'pending', state: 'admitted', text: 'then run the linter' }),
    ],
    messages: [
      { id: 'msg_in_in_0', sessionId: SID, role: 'user', turn: 0, step: 0, inputId: 'in_0', createdAtMs: 0 },
      { id: 'msg_0_0_assistant', sessionId: SID, role: 'assistant', turn: 0, step: 0, createdAtMs: 0 },
      { id: 'msg_in_in_1', sessionId: SID, role: 'user', turn: 0, step: 1, inputId: 'in_1', createdAtMs: 0 },
      { id: 'msg_0_1_assistant', sessionId: SID, role: 'assistant', turn: 0, step: 1, createdAtMs: 0 },
      { id: 'msg_0_2_assistant', sessionId: SID, role: 'assistant', turn: 0, step: 2, createdAtMs: 0 },
    ],
    parts: [
      part(0, 0, 0, { messageId: 'msg_in_in_0', text: 'rename a' }),
      part(0, 0, 1, { kind: 'tool_call', toolCallId: applied.id }),
      part(0, 1, 0, { messageId: 'msg_in_in_1', text: 'also rename b' }),
      part(0, 1, 1, { kind: 'tool_call', toolCallId: refused.id }),
      part(0, 1, 2, { kind: 'tool_call', toolCallId: shell.id }),
      part(0, 2, 0, { text: LONG_FINAL }),
    ],
    toolCalls: [applied, refused, shell],
  };
}

describe('cutting long text', () => {
  it('cuts prose after the last sentence that fits, never inside a word', () => {
    const text = 'First sentence here. Second sentence is longer than that. Third.';
    expect(cutProse(text, 40)).toEqual({ shown: 'First sentence here.', omittedChars: 43 });
    expect(cutProse(text, 1000)).toEqual({ shown: text, omittedChars: 0 });
    // No sentence end in reach: the last whole word.
    expect(cutProse('alpha beta gamma delta epsilon', 13)).toEqual({ shown: 'alpha beta', omittedChars: 19 });
    // A line break is a boundary too.
    expect(cutProse('a first line that is long\nsecond', 30).shown).toBe('a first line that is long');
    // A text without white space has no word boundary: it is cut at the limit (by code points).
    expect(cutProse('😀'.repeat(10), 4)).toEqual({ shown: '😀'.repeat(4), omittedChars: 6 });
  });

  it('keeps whole lines within the line and character limits', () => {
    expect(cutLines(['a', 'b', 'c', 'd'], 2, 100)).toEqual({ shown: ['a', 'b'], omittedLines: 2, omittedChars: 4 });
    expect(cutLines(['aaaa', 'bbbb'], 10, 6)).toEqual({ shown: ['aaaa'], omittedLines: 1, omittedChars: 5 });
    expect(cutLines(['a', 'b'], 2, 100)).toEqual({ shown: ['a', 'b'], omittedLines: 0, omittedChars: 0 });
  });

  it('the note says how much was left out and that --full shows it', () => {
    expect(omissionNote(view(), 2345)).toBe(
      `… (2,345 more characters; zuno session show ${SID} --full shows everything)`,
    );
    expect(omissionNote(view(), 20, 1)).toBe(
      `… (1 more line, 20 characters; zuno session show ${SID} --full shows everything)`,
    );
  });
});

describe('renderTranscript', () => {
  it('counts turns and steps from 1 and prints no internal ids', () => {
    const out = renderTranscript(transcript(), view());
    const lines = out.split('\n');
    expect(lines.filter((l) => l.startsWith('── '))).toEqual([
      '── turn 1, step 1',
      '── turn 1, step 2',
      '── turn 1, step 3',
    ]);
    expect(out).not.toMatch(/turn 0|step 0/);
    expect(out).not.toMatch(/\b(in_\d|tc_\d|call_\d|prt_\d|msg_|rcp_)/);
    expect(out).not.toMatch(/\b(driven|steered|pending)\b/);
    expect(lines).toContain('you: rename a');
    expect(lines).toContain('you (steering the running turn): also rename b');
    expect(lines).toContain('input 3, queued: then run the linter');
  });

  it('shows an applied patch as its recorded diff, a refused one as its patch text, never as JSON', () => {
    const out = renderTranscript(transcript(), view());
    expect(out).not.toContain('{"patch"');
    expect(out).not.toContain('\\n');
    const lines = out.split('\n');
    const applied = lines.indexOf('tool apply_patch: src/a.ts → ok');
    expect(applied).toBeGreaterThan(0);
    expect(lines.slice(applied + 1, applied + 8)).toEqual([
      '  --- a/src/a.ts',
      '  +++ b/src/a.ts',
      '  @@ -1,2 +1,2 @@',
      '  -export const a = 1;',
      '  +export const renamed = 1;',
      '   export const b = 2;',
      '  | Success. Updated the following files:',
    ]);
    const refused = lines.indexOf('tool apply_patch: src/a.ts → error (code ReadRequired)');
    expect(refused).toBeGreaterThan(applied);
    expect(lines.slice(refused + 1, refused + 8)).toEqual(['  patch:', ...PATCH.split('\n').map((l) => `    ${l}`)]);
  });

  it('shows a multi-line argument as an indented block and never ok beside a failed receipt', () => {
    const lines = renderTranscript(transcript(), view()).split('\n');
    const shell = lines.indexOf('tool shell: npm test → failed (exit 1)');
    expect(shell).toBeGreaterThan(0);
    expect(lines.slice(shell + 1, shell + 5)).toEqual([
      '  command:',
      '    npm test',
      '    echo done',
      '  receipt: failed, exit 1, authority authoritative',
    ]);
  });

  it('cuts a long final text at a sentence with a note; --full prints it whole', () => {
    const cut = renderTranscript(transcript(), view());
    const finalLine = cut.split('\n').find((l) => l.startsWith('final: '))!;
    expect(finalLine).toMatch(/^final: Sentence 1 says .*\.$/);
    expect(finalLine.length).toBeLessThan(LONG_FINAL.length);
    expect(cut).toMatch(
      new RegExp(`\\n {2}… \\([\\d,]+ more characters; zuno session show ${SID} --full shows everything\\)\\n`),
    );
    const full = renderTranscript(transcript(), view({ full: true }));
    expect(full.split('\n')).toContain(`final: ${LONG_FINAL}`);
    expect(full).not.toContain('--full shows everything');
  });

  it('cuts a long diff at a line with a note; --full prints all of it', () => {
    const t = transcript();
    const added = Array.from({ length: 200 }, (_, i) => `+line ${i + 1}`);
    const diff = ['--- /dev/null', '+++ b/src/big.ts', '@@ -0,0 +1,200 @@', ...added, ''].join('\n');
    t.toolCalls[0]!.result = { changes: [{ path: 'src/big.ts', op: 'add', diff }] };
    const cut = renderTranscript(t, view()).split('\n');
    const last = cut.indexOf('  +line 77');
    expect(last).toBeGreaterThan(0);
    expect(cut[last + 1]).toMatch(
      /^ {2}… \(123 more lines, [\d,]+ characters; zuno session show ses_view --full shows everything\)$/,
    );
    const full = renderTranscript(t, view({ full: true })).split('\n');
    expect(full).toContain('  +line 200');
  });

  it('colours diff lines only when asked', () => {
    expect(renderTranscript(transcript(), view())).not.toContain('\x1b[');
    const coloured = renderTranscript(transcript(), view({ color: true }));
    expect(coloured).toContain('  \x1b[32m+export const renamed = 1;\x1b[0m');
    expect(coloured).toContain('  \x1b[31m-export const a = 1;\x1b[0m');
  });

  it('names a background task by the call that started it', () => {
    const t = transcript();
    t.toolCalls.push(
      call(3, 0, { tool: 'shell', argsJson: JSON.stringify({ command: 'make', background: true }), turn: 1 }),
    );
    t.toolCalls.at(-1)!.id = 'tc_1_3_0';
    const task = { taskID: 'bg_1_3_0', rowId: 'tc_1_3_0', state: 'exited', outcome: 'ok', exitCode: 0 };
    expect(renderBackground([{ ...task, totalWritten: 1234, durationMs: 1500 }], t)).toBe(
      '\nbackground shell (background): make (turn 2, step 4) exited, exit 0, 1,234 bytes of output in 1.5 s\n',
    );
  });
});

describe('session interrupt', () => {
  it('counts the interrupted turn from 1', () => {
    const receipt = { sessionId: SID, interrupted: true, turn: 0, phase: 'tools' as const, backgroundCancelled: [] };
    expect(describeInterrupt(SID, { ...receipt, alreadyRequested: false })).toMatch(
      new RegExp(`^session ${SID}: interrupting turn 1 \\(running tool calls\\); `),
    );
    expect(describeInterrupt(SID, { ...receipt, turn: 2, alreadyRequested: true })).toBe(
      `session ${SID}: turn 3 is already being interrupted\n`,
    );
  });
});
