/**
 * `zuno run` end to end: the real launcher in a child process, the real
 * Temporal dev server of the global setup, the real local provider server
 * (`--script`), real rg and a SQLite projection in a temp ZUNO_HOME.
 */
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/open.js';
import type { Transcript } from '../../activities/projection/types.js';
import { makeHome, makeWorkspace, parseNdjson, runZuno, tempDir, writeJson } from './helpers.js';

const FINAL = 'The TODO is in src/a.ts line 1.';
const SCRIPT = {
  description: 'grep for the TODO, then answer',
  replies: [
    { text: 'Searching.', toolCalls: [{ name: 'grep', arguments: { pattern: 'TODO', path: 'src' } }] },
    { text: FINAL },
  ],
};

let address: string;
let scriptFile: string;
beforeAll(() => {
  address = inject('temporalAddress');
  scriptFile = writeJson(tempDir('zuno-cli-script-'), 'script.json', SCRIPT);
});

describe('zuno run --json', () => {
  it('streams NDJSON ending in session.completed; session show prints the stored transcript', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    const env = { TEMPORAL_ADDRESS: address };
    const r = await runZuno(['run', 'Find the TODO', '--dir', ws, '--script', scriptFile, '--json'], { home, env });
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 0, timedOut: false });
    expect(r.stderr).toBe('');

    const events = parseNdjson(r.stdout);
    const types = events.map((e) => e.type);
    expect(types).toContain('session.turn.started.1');
    expect(types).toContain('tool.started');
    expect(types).toContain('tool.completed');
    expect(types).toContain('message.part.delta');
    expect(types.filter((t) => t === 'session.completed')).toHaveLength(1);
    const last = events.at(-1)!;
    const sessionId = last.sessionId as string;
    expect(sessionId).toMatch(/^ses_[0-9a-z]+$/);
    expect(last).toMatchObject({ type: 'session.completed', sessionId, text: FINAL, turn: 0, error: null });
    expect(last.workflowId).toBe(`session/${sessionId}`);
    // Every line belongs to this session, in ascending seq order.
    for (const e of events) expect(e.sessionId).toBe(sessionId);
    const seqs = events.map((e) => e.seq as number);
    expect(seqs).toEqual([...seqs].sort((a, b) => a - b));
    expect(new Set(seqs).size).toBe(seqs.length);
    // The tool events carry the call.
    expect(events.find((e) => e.type === 'tool.started')).toMatchObject({
      tool: 'grep',
      callId: 'call_0_0',
      attempt: 1,
      summary: 'grep: TODO in src',
    });
    expect(events.find((e) => e.type === 'tool.completed')).toMatchObject({
      tool: 'grep',
      callId: 'call_0_0',
      outcome: 'ok',
      errorCode: null,
    });
    // The streamed deltas spell out the assistant text of both steps.
    const deltas = events
      .filter((e) => e.type === 'message.part.delta')
      .map((e) => e.text as string)
      .join('');
    expect(deltas).toBe(`Searching.${FINAL}`);

    // `session show`: human view with the tool call and its outcome.
    const show = await runZuno(['session', 'show', sessionId], { home });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stderr).toBe('');
    const lines = show.stdout.split('\n');
    expect(lines[0]).toBe(`session ${sessionId}  completed  local/scripted`);
    expect(lines).toContain(`workflow session/${sessionId}`);
    expect(lines).toContain('── turn 1, step 1');
    expect(lines).toContain('you: Find the TODO');
    expect(lines).toContain('assistant: Searching.');
    // The tool's own summary and readable fields, no call id, no JSON.
    expect(lines).toContain('tool grep: TODO in src → ok');
    expect(lines).toContain('  pattern: TODO');
    expect(lines).toContain('  path: src');
    expect(show.stdout).not.toMatch(/call_0_0|tc_0|in_0|\{"pattern"/);
    expect(lines).toContain('  | src/a.ts:');
    expect(lines).toContain('  |   1: export const a = 1; // TODO: rename');
    expect(lines).toContain(`final: ${FINAL}`);

    // `session show --json`: the transcript with the tool-call row.
    const showJson = await runZuno(['session', 'show', sessionId, '--json'], { home });
    expect(showJson.code, showJson.stderr).toBe(0);
    const t = JSON.parse(showJson.stdout) as Transcript;
    expect(Object.keys(t).sort()).toEqual([
      'background',
      'compactions',
      'delegatedBy',
      'delegations',
      'goal',
      'inputs',
      'messages',
      'parts',
      'route',
      'rules',
      'session',
      'toolCalls',
      'usage',
    ]);
    expect((t as unknown as { goal: unknown }).goal).toBeNull(); // no goal drives an ordinary session
    // A session a person started: no delegation started it, it made none, it runs as build.
    expect(t).toMatchObject({ delegatedBy: null, delegations: [], session: { agent: 'build', parentSessionId: null } });
    // PR11: the script reports no usage, so every bucket is unknown — counted, never 0.
    expect(
      (t as unknown as { usage: { cumulative: { requests: number; tokens: object } } }).usage.cumulative,
    ).toMatchObject({
      requests: 2,
      tokens: {},
    });
    expect(t.session).toMatchObject({
      id: sessionId,
      status: 'completed',
      provider: 'local',
      model: 'scripted',
      workflowId: `session/${sessionId}`,
      finalText: FINAL,
    });
    expect(t.inputs).toHaveLength(1);
    expect(t.inputs[0]).toMatchObject({ text: 'Find the TODO', state: 'completed' });
    expect(t.toolCalls).toHaveLength(1);
    expect(t.toolCalls[0]).toMatchObject({
      tool: 'grep',
      callId: 'call_0_0',
      status: 'completed',
      outcome: 'ok',
      attempts: 1,
      argsJson: '{"pattern":"TODO","path":"src"}',
    });
    expect(t.toolCalls[0]!.output).toContain('TODO: rename');

    // The same rows, read through the projection store itself.
    const store = await openProjectionStore({ zunoDir: home });
    try {
      const stored = await store.loadTranscript(sessionId);
      expect(stored?.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([['grep', 'ok']]);
      expect(stored?.session.finalText).toBe(FINAL);
    } finally {
      await store.close();
    }
  });
});

describe('zuno run (human mode, stdout not a TTY)', () => {
  it('prints only the final answer on stdout and tool progress on stderr', async () => {
    const { home, taskQueue } = makeHome({ address });
    const ws = makeWorkspace();
    const r = await runZuno(['run', 'Find the TODO', '--dir', ws, '--script', scriptFile], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 0, timedOut: false });
    expect(r.stdout, r.stderr).toBe(`${FINAL}\n`);
    const err = r.stderr.split('\n');
    expect(err).toContain('→ grep: TODO in src');
    expect(
      err.some((l) => /^✓ grep ok, \d+ bytes, \d+ ms$/.test(l)),
      r.stderr,
    ).toBe(true);
    expect(err.indexOf('→ grep: TODO in src')).toBeLessThan(err.findIndex((l) => l.startsWith('✓ grep ok')));
    const admitted = err.find((l) => l.startsWith('session '));
    // Plain words: no workflow id, no input id, no receipt jargon.
    expect(admitted).toMatch(/^session ses_[0-9a-z]+ started$/);
    // CP6: a model with no known window is said once (a scripted model has none unless zuno.json models sets it).
    expect(err.filter((l) => l.startsWith('note: no context window known for local/scripted'))).toHaveLength(1);
    // The answer text never leaks into the progress stream.
    expect(r.stderr).not.toContain(FINAL);
    expect(r.stderr).not.toContain(taskQueue);
  });
});

describe('zuno run: a long tool call (stderr not a TTY)', () => {
  it('prints plain progress lines, no carriage return or escape sequence, and the completion line', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-cli-script-'), 'slow.json', {
      replies: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo start; sleep 6; echo done' } }] },
        { text: 'It printed done.' },
      ],
    });
    // The first "still running" line after 3 s instead of 30 s (the heartbeat carrying "start" has arrived by then).
    const r = await runZuno(['run', 'Run the slow command', '--dir', ws, '--script', script], {
      home,
      env: { TEMPORAL_ADDRESS: address, ZUNO_PROGRESS_FIRST_MS: '3000' },
    });
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 0, timedOut: false });
    expect(r.stdout).toBe('It printed done.\n');
    expect(r.stderr).not.toContain('\r');
    expect(r.stderr).not.toContain('\x1b');
    const err = r.stderr.split('\n');
    const start = err.indexOf('→ shell: echo start; sleep 6; echo done');
    const progress = err.findIndex((l) => /^… shell still running \(\d+s\): start$/.test(l));
    const done = err.findIndex((l) => /^✓ shell ok, exit 0, \d+ bytes, \d+ ms$/.test(l));
    expect({ start, progress, done }, r.stderr).toEqual({
      start: expect.any(Number),
      progress: start + 1,
      done: start + 2,
    });
    expect(start).toBeGreaterThanOrEqual(0);
    // Turns, steps and retries read as people count; no internal ids in what zuno run says.
    expect(r.stderr).not.toMatch(/\bin_\d+|\bdriven\b|\btc_\d|\bturn 0\b/);
  }, 90_000);
});
