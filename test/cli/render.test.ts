/**
 * What `zuno run` prints while it follows a session, without a session: the
 * human renderer fed stored-event rows, the live-progress formatter, and the
 * terminal sink on fake streams (no real terminal, no timers: the progress
 * clock is driven by hand).
 */
import { describe, expect, it } from 'vitest';
import type { EventRow } from '../../activities/projection/types.js';
import { messageWithoutCode } from '../../core/errors.js';
import { EV } from '../../core/events.js';
import { plainTerminalLine } from '../../core/terminal-text.js';
import { progressDetails } from '../../activities/tools/progress.js';
import {
  cutToWidth,
  displayWidth,
  formatElapsed,
  statusLine,
  stillRunningLine,
  streamSink,
  type PendingActivity,
} from '../../client/live-progress.js';
import { HumanRenderer, sessionEndLine } from '../../client/render.js';
import { interruptVerdict } from '../../core/session/interrupt-verdict.js';
import { toolRecordFacts } from '../../client/commands/tool-record-view.js';
import type { Sink } from '../../client/sink.js';

/** A sink that records every write in order; `tty` adds the status line. */
function recordingSink(tty: boolean, columns = 80) {
  const log: { to: 'out' | 'err' | 'status'; text: string | null }[] = [];
  const sink: Sink = {
    out: (text) => void log.push({ to: 'out', text }),
    err: (text) => void log.push({ to: 'err', text }),
    ...(tty ? { status: (text: string | null) => void log.push({ to: 'status', text }), columns: () => columns } : {}),
  };
  return { sink, log, err: () => log.filter((l) => l.to === 'err').map((l) => l.text as string) };
}

/** Half of a surrogate pair without its other half: what a cut inside an emoji leaves. */
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

let seq = 0;
function row(type: string, data: Record<string, unknown>, atMs = 1_000): EventRow {
  seq += 1;
  return { seq, id: `e${seq}`, sessionId: 'ses_test', type, data, atMs };
}

const started = (atMs = 1_000) =>
  row(
    EV.toolStarted,
    { rowId: 'tc_0_0_1', callId: 'call_0_0', tool: 'shell', attempt: 1, summary: 'shell: npm test' },
    atMs,
  );
const completed = () =>
  row(EV.toolCompleted, {
    rowId: 'tc_0_0_1',
    callId: 'call_0_0',
    tool: 'shell',
    outcome: 'ok',
    errorCode: null,
    outputBytes: 12,
    durationMs: 6012,
    facts: { exitCode: 0 },
  });

/** A clock the test moves. */
function clock(start = 1_000) {
  let t = start;
  return { now: () => t, advance: (ms: number) => (t += ms) };
}

/**
 * A reader answering with one running tool_shell activity whose newest line
 * is `line`; its heartbeat's elapsed time is `elapsedMs()` (default 0).
 */
function pendingShell(line: string, reads: { n: number } = { n: 0 }, elapsedMs: () => number = () => 0) {
  return async (): Promise<PendingActivity[]> => {
    reads.n += 1;
    return [
      {
        activityType: 'tool_shell',
        attempt: 1,
        startedAtMs: 1_000,
        heartbeat: { outputBytes: 40, elapsedMs: elapsedMs(), lastLine: line },
      },
    ];
  };
}

describe('live progress formatting', () => {
  it('formatElapsed: seconds, then minutes and seconds, then hours and minutes', () => {
    expect(formatElapsed(0)).toBe('0s');
    expect(formatElapsed(999)).toBe('0s');
    expect(formatElapsed(59_999)).toBe('59s');
    expect(formatElapsed(60_000)).toBe('1m00s');
    expect(formatElapsed(83_400)).toBe('1m23s');
    expect(formatElapsed(3_599_000)).toBe('59m59s');
    expect(formatElapsed(3_600_000)).toBe('1h00m');
    expect(formatElapsed(7_500_000)).toBe('2h05m');
    expect(formatElapsed(-5)).toBe('0s');
  });

  it('cutToWidth cuts to terminal columns between characters, never inside a multi-byte one', () => {
    expect(cutToWidth('hello world', 20)).toBe('hello world');
    expect(cutToWidth('hello world', 6)).toBe('hello…');
    expect(cutToWidth('hello', 0)).toBe('');
    // Two-column characters: CJK and emoji (a surrogate pair in UTF-16, 4 bytes in UTF-8).
    expect(displayWidth('日本語テキスト')).toBe(14);
    expect(cutToWidth('日本語テキスト', 8)).toBe('日本語…');
    const emoji = cutToWidth('👍👍👍👍', 6);
    expect(emoji).toBe('👍👍…');
    // A letter and its combining accent stay together; nothing half-cut survives.
    const accents = cutToWidth('e\u0301e\u0301e\u0301e\u0301', 3);
    expect(accents).toBe('e\u0301e\u0301…');
    for (const s of [emoji, accents, cutToWidth('ü'.repeat(50), 7), cutToWidth('👨‍👩‍👧 family', 4)]) {
      expect(s).not.toMatch(LONE_SURROGATE);
      expect(Buffer.from(s, 'utf8').toString('utf8')).toBe(s);
    }
    // A joined emoji sequence is one grapheme: kept whole or dropped, never split.
    expect(cutToWidth('👨‍👩‍👧 family', 3)).toBe('👨‍👩‍👧…');
    expect(cutToWidth('👨‍👩‍👧 family', 2)).toBe('…');
  });

  it('plainTerminalLine strips escape sequences and control characters from an output line', () => {
    expect(plainTerminalLine('\x1b[32m✓\x1b[0m 12 tests \x1b[1mpassed\x1b[22m')).toBe('✓ 12 tests passed');
    expect(plainTerminalLine('\x1b]0;window title\x07building')).toBe('building');
    expect(plainTerminalLine('\x1b[2K\x1b[1Gdownloading')).toBe('downloading');
    // A progress bar rewritten with carriage returns shows its last state.
    expect(plainTerminalLine(' 10%\r 50%\r100% done\r')).toBe('100% done');
    expect(plainTerminalLine('a\tb\x00c\x7fd\x85e')).toBe('a b c d e');
    // Bidi overrides and zero-width characters would rearrange the terminal line.
    expect(plainTerminalLine('\u202eevil\u202c name\u200b')).toBe('evil name');
    expect(plainTerminalLine('\x1b[31m\r\n')).toBe('');
  });

  it('the heartbeat details of a running tool carry the line as plain text (no [32m remnants)', () => {
    expect(progressDetails({ outputBytes: 10, lastLine: '\x1b[32mstep 1\x1b[0m of 5\r' }, 1_000, 2_500)).toEqual({
      outputBytes: 10,
      elapsedMs: 1_500,
      lastLine: 'step 1 of 5',
    });
  });

  it('statusLine fits the terminal, shows summary, elapsed time and newest line, and holds no control characters', () => {
    const view = {
      summary: 'shell: npm test',
      elapsedMs: 83_000,
      lastLine: '\x1b[33mRUN\x1b[0m test/a.test.ts',
      more: 0,
    };
    expect(statusLine(view, '⠋', 80)).toBe('⠋ shell: npm test · 1m23s · RUN test/a.test.ts');
    expect(statusLine({ ...view, more: 2 }, '⠙', 80)).toBe('⠙ shell: npm test · 1m23s (+2 more) · RUN test/a.test.ts');
    expect(statusLine({ summary: 'shell: npm test', elapsedMs: 3_000, more: 0 }, '⠋', 80)).toBe(
      '⠋ shell: npm test · 3s',
    );
    const long = { summary: `shell: ${'x'.repeat(200)}`, elapsedMs: 5_000, lastLine: 'é'.repeat(300), more: 0 };
    for (const columns of [20, 40, 80, 200]) {
      const line = statusLine(long, '⠋', columns);
      expect(displayWidth(line), line).toBeLessThanOrEqual(columns - 1);
      // eslint-disable-next-line no-control-regex -- no control character may reach the terminal
      expect(line).not.toMatch(/[\x00-\x1f\x7f-\x9f]/);
      expect(line).toContain('5s'); // the summary never pushes the elapsed time out
    }
  });

  it('stillRunningLine is plain text', () => {
    expect(stillRunningLine('shell', 90_000, '\x1b[1mcompiling\x1b[0m 3/7\r')).toBe(
      '… shell still running (1m30s): compiling 3/7',
    );
    expect(stillRunningLine('shell', 30_000)).toBe('… shell still running (30s)');
  });
});

describe('HumanRenderer', () => {
  it('numbers turns from 1', () => {
    const { sink, err } = recordingSink(false);
    const r = new HumanRenderer(sink, false, { manual: true });
    const ended = { sessionId: 'ses_test', workflowId: null, text: null, error: null, background: [] };
    r.render(row(EV.interrupted, { ...ended, turn: 0 }));
    expect(err()).toEqual(['session interrupted (turn 1)\n']);
  });

  it("an interrupted call's verdict is printed in the words session show uses (SF13)", () => {
    const { sink, err } = recordingSink(false);
    const r = new HumanRenderer(sink, false, { manual: true });
    const verdict = interruptVerdict({ outcome: 'uncertain', cause: 'interrupted', paths: ['a.txt'] });
    r.render(
      row(EV.toolDispatchInterrupted, {
        rowId: 'tc_0_0_1',
        callId: 'call_0_0',
        tool: 'shell',
        outcome: 'uncertain',
        cause: 'interrupted',
        verdict,
      }),
    );
    expect(err()).toEqual([
      '  shell call_0_0: uncertain: an interrupt stopped it before it reported; may have changed a.txt\n',
    ]);
    expect(toolRecordFacts({ uncertain: { cause: 'interrupted', paths: ['a.txt'] } })).toEqual([verdict]);
  });

  it('MCP servers connecting, failing, changing their tools and tool_search exposures each get one line (issue 30)', () => {
    const { sink, err } = recordingSink(false);
    const r = new HumanRenderer(sink, false, { manual: true });
    r.render(row(EV.mcpServerState, { server: 'everything', status: 'connected', revision: 1, tools: 13 }));
    r.render(
      row(EV.mcpServerState, {
        server: 'everything',
        status: 'connected',
        revision: 2,
        tools: 14,
        change: 'tools_changed',
      }),
    );
    r.render(
      row(EV.mcpServerState, {
        server: 'everything',
        status: 'connected',
        revision: 4,
        tools: 14,
        change: 'reconnected',
      }),
    );
    r.render(row(EV.mcpServerState, { server: 'tracker', status: 'failed', revision: 0, tools: 0, error: 'HTTP 401' }));
    r.render(
      row(EV.mcpToolsExposed, {
        rowId: 'tc_0_0_0',
        callId: 'c',
        tool: 'tool_search',
        query: 'echo',
        revision: 1,
        tools: [{ name: 'mcp__everything__echo', server: 'everything', tool: 'echo' }],
      }),
    );
    expect(err()).toEqual([
      '· MCP server everything connected (13 tools)\n',
      '· MCP server everything changed its tools (revision 2, 14 tools)\n',
      '· MCP server everything reconnected (14 tools)\n',
      '✗ MCP server tracker failed: HTTP 401\n',
      '· tool_search exposed mcp__everything__echo (from the next step)\n',
    ]);
  });

  it('a conflict names its kind once when the error code is the same kind', () => {
    const { sink, err } = recordingSink(false);
    const r = new HumanRenderer(sink, false, { manual: true });
    r.render(row(EV.toolStarted, { rowId: 'tc_0_0_1', callId: 'call_0_0', tool: 'apply_patch', attempt: 1 }));
    r.render(
      row(EV.toolCompleted, {
        rowId: 'tc_0_0_1',
        callId: 'call_0_0',
        tool: 'apply_patch',
        outcome: 'error',
        errorCode: 'ReadRequired',
        outputBytes: 204,
        durationMs: 16,
        facts: { conflict: 'ReadRequired' },
      }),
    );
    const line = err().find((l) => l.includes('apply_patch error'))!;
    expect(line.match(/ReadRequired/g)).toHaveLength(1);
  });

  it('a failed session prints no line of its own: the run ends with one zuno: line that says the code once', () => {
    const { sink, log } = recordingSink(false);
    const r = new HumanRenderer(sink, false, { manual: true });
    const error = {
      code: 'provider_connection',
      message: 'provider openai: connection refused: 127.0.0.1:1 (ECONNREFUSED)',
    };
    r.render(row(EV.failed, { sessionId: 'ses_test', turn: 0, workflowId: null, text: null, error, background: [] }));
    expect(log).toEqual([]);
    expect(sessionEndLine('ses_test', 'failed', error)).toBe(
      'zuno: provider_connection: session ses_test failed: provider openai: connection refused: 127.0.0.1:1 (ECONNREFUSED)\n',
    );
    // Messages recorded by older builds repeat the code: the repeat goes.
    const old = {
      code: 'provider_connection',
      message: 'provider_connection [openai]: connection refused: 127.0.0.1:1',
    };
    const line = sessionEndLine('ses_test', 'failed', old);
    expect(line).toBe(
      'zuno: provider_connection: session ses_test failed: provider openai: connection refused: 127.0.0.1:1\n',
    );
    expect(line.match(/provider_connection/g)).toHaveLength(1);
    expect(
      sessionEndLine('ses_x', 'paused', { code: 'provider_auth', message: 'provider_auth: HTTP 401:\nbad key' }),
    ).toBe('zuno: provider_auth: session ses_x paused: HTTP 401: bad key\n');
    expect(sessionEndLine('ses_x', 'failed', null)).toBe('zuno: session_failed: session ses_x failed\n');
  });

  it('messageWithoutCode drops only a real repeat of the code', () => {
    expect(messageWithoutCode('provider_timeout [local]: no stream chunk', 'provider_timeout')).toBe(
      'provider local: no stream chunk',
    );
    expect(messageWithoutCode('config_invalid: bad key', 'config_invalid')).toBe('bad key');
    expect(messageWithoutCode('interrupted before the session started', 'interrupted')).toBe(
      'interrupted before the session started',
    );
    expect(messageWithoutCode('provider openai: HTTP 500', 'provider_unavailable')).toBe('provider openai: HTTP 500');
  });

  it('retry notices say what happened: the retry and its reason once; discarded output only when there was some', () => {
    const { sink, err } = recordingSink(false);
    const r = new HumanRenderer(sink, false, { manual: true });
    const retry = (attempt: number) =>
      row(EV.providerRetry, {
        turn: 0,
        step: 1,
        attempt,
        code: 'provider_unavailable',
        diagnostic: { status: 503, reason: 'HTTP 503: upstream\nbroke' },
        delayMs: 2_000,
        maxAttempts: 3,
        remainingWindowMs: 170_000,
        lastAttempt: false,
        willRetry: true,
      });
    const rollback = (attempt: number, discardedParts?: number) =>
      row(EV.stepRollback, {
        turn: 0,
        step: 1,
        attempt,
        maxAttempts: 3,
        ...(discardedParts !== undefined ? { discardedParts } : {}),
      });
    r.render(retry(1));
    r.render(rollback(2, 0)); // nothing was stored, and the retry was already announced
    expect(err()).toEqual(['(retrying the model request (attempt 2 of 3) in 2.0 s after: HTTP 503: upstream broke)\n']);
    r.render(rollback(3, 2)); // an attempt that had stored two parts, then was lost
    expect(err()[1]).toBe(
      '(retrying the model request (attempt 3 of 3): the 2 parts the earlier attempt had stored were discarded)\n',
    );
    r.render(row(EV.stepRollback, { turn: 1, step: 0, attempt: 2, maxAttempts: 3, discardedParts: 0 }));
    expect(err()[2]).toBe(
      '(retrying the model request (attempt 2 of 3) after: the earlier attempt ended without a result)\n',
    );
    expect(err().join('')).not.toContain('partial output');
  });

  it('on a terminal, a retry after streamed text says that text is discarded', () => {
    const { sink, log } = recordingSink(true);
    const r = new HumanRenderer(sink, true, { manual: true });
    r.render(row(EV.partDelta, { messageId: 'msg_0_0_assistant', text: 'Half an ans' }));
    r.render(row(EV.stepRollback, { turn: 0, step: 0, attempt: 2, maxAttempts: 3, discardedParts: 0 }));
    expect(log).toEqual([
      { to: 'out', text: 'Half an ans' },
      { to: 'out', text: '\n' },
      {
        to: 'err',
        text: '(retrying the model request (attempt 2 of 3): the text streamed above by the earlier attempt is discarded)\n',
      },
    ]);
  });

  it('on a terminal, a long tool call gets a status line redrawn in place, cleared before its completion line', async () => {
    const { sink, log } = recordingSink(true, 60);
    const c = clock();
    const reads = { n: 0 };
    const r = new HumanRenderer(sink, false, {
      manual: true,
      now: c.now,
      pendingActivities: pendingShell('\x1b[32mPASS\x1b[0m a.test.ts', reads),
    });
    r.render(started());
    expect(log).toEqual([{ to: 'err', text: '→ shell: npm test\n' }]);
    c.advance(500);
    await r.progress.tick();
    expect(reads.n).toBe(0); // nothing is read for a call that just started
    c.advance(700);
    await r.progress.tick(); // 1.2 s: details are read ahead of the line
    expect(reads.n).toBe(1);
    expect(log.filter((l) => l.to === 'status')).toEqual([]); // not yet 2 s
    c.advance(1_300);
    await r.progress.tick();
    c.advance(1_000);
    await r.progress.tick();
    const drawn = log.filter((l) => l.to === 'status').map((l) => l.text);
    expect(drawn).toEqual(['⠋ shell: npm test · 2s · PASS a.test.ts', '⠙ shell: npm test · 3s · PASS a.test.ts']);
    r.render(completed());
    expect(log.slice(-2)).toEqual([
      { to: 'status', text: null },
      { to: 'err', text: '✓ shell ok, exit 0, 12 bytes, 6012 ms\n' },
    ]);
    // Ended: no more lines, no more reads.
    const before = { lines: log.length, reads: reads.n };
    c.advance(5_000);
    await r.progress.tick();
    expect({ lines: log.length, reads: reads.n }).toEqual(before);
  });

  it('a follower that saw the start late shows the elapsed time the activity heartbeats', async () => {
    const { sink, log } = recordingSink(true);
    const c = clock();
    // The call had been running 40 s when this follower saw its tool.started.
    const r = new HumanRenderer(sink, false, {
      manual: true,
      now: c.now,
      pendingActivities: pendingShell('building', { n: 0 }, () => 40_000 + c.now() - 1_000),
    });
    r.render(started());
    c.advance(1_000);
    await r.progress.tick();
    c.advance(1_500);
    await r.progress.tick();
    expect(log.filter((l) => l.to === 'status').map((l) => l.text)).toEqual(['⠋ shell: npm test · 42s · building']);
  });

  it('off a terminal, a long tool call prints a plain "still running" line now and then', async () => {
    const { sink, log, err } = recordingSink(false);
    const c = clock();
    const r = new HumanRenderer(sink, false, {
      manual: true,
      now: c.now,
      pendingActivities: pendingShell('compiling\r 3/7'),
      timing: { firstPlainMs: 30_000, everyPlainMs: 60_000 },
    });
    r.render(started());
    for (let t = 0; t < 100; t++) {
      c.advance(1_000);
      await r.progress.tick();
    }
    r.render(completed());
    expect(err()).toEqual([
      '→ shell: npm test\n',
      '… shell still running (30s): 3/7\n',
      '… shell still running (1m30s): 3/7\n',
      '✓ shell ok, exit 0, 12 bytes, 6012 ms\n',
    ]);
    expect(log.some((l) => l.to === 'status')).toBe(false);
  });
});

describe('streamSink', () => {
  /** A stream stand-in that keeps what is written. */
  function fakeStream(isTTY: boolean, columns?: number) {
    const chunks: string[] = [];
    const stream = { isTTY, columns, write: (t: string) => chunks.push(t) > 0 } as unknown as NodeJS.WriteStream;
    return { stream, text: () => chunks.join(''), chunks };
  }

  it('on a terminal: the status line is drawn in place and cleared before anything else is written', () => {
    const out = fakeStream(true);
    const err = fakeStream(true, 100);
    const sink = streamSink(out.stream, err.stream);
    expect(sink.columns?.()).toBe(100);
    sink.status!('⠋ shell: npm test · 3s');
    sink.status!('⠙ shell: npm test · 4s');
    sink.err('✓ shell ok\n');
    expect(err.chunks).toEqual([
      '\r\x1b[2K⠋ shell: npm test · 3s',
      '\r\x1b[2K⠙ shell: npm test · 4s',
      '\r\x1b[2K',
      '✓ shell ok\n',
    ]);
    // Text still streaming on the shared terminal (no newline yet) is never drawn over.
    sink.out('Partial answ');
    sink.status!('⠹ shell · 5s');
    expect(err.chunks).toHaveLength(4);
    sink.out('er.\n');
    sink.status!('⠸ shell · 6s');
    sink.out('more\n');
    expect(err.chunks.slice(4)).toEqual(['\r\x1b[2K⠸ shell · 6s', '\r\x1b[2K']);
    sink.status!(null); // nothing shown: nothing written
    expect(err.chunks).toHaveLength(6);
  });

  it('off a terminal: no status line, and nothing but the text reaches the streams', () => {
    const out = fakeStream(false);
    const err = fakeStream(false);
    const sink = streamSink(out.stream, err.stream);
    expect(sink.status).toBeUndefined();
    sink.err('→ shell: sleep 6\n');
    sink.out('answer\n');
    expect(err.text()).toBe('→ shell: sleep 6\n');
    expect(out.text()).toBe('answer\n');
  });
});
