/**
 * Issue 29 item 1, Must show (robustness): malformed JSON-RPC, an unknown
 * method, a prompt for an unknown session, a bad `cwd` and an empty prompt
 * each get a JSON-RPC error, and `zuno acp` goes on answering; standard
 * output carries nothing but JSON-RPC lines. A second prompt while one runs
 * is admitted through the inbox like any input (here the running turn takes
 * it as steering) and answers, after the first, at the end of the turn that
 * carried it — never before that turn's last update.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { expectTypedFailure, makeHome, makeWorkspace, runZuno, tempDir, writeJson, ZUNO_BIN } from '../cli/helpers.js';
import { waitFor } from '../helpers/worker-process.js';
import { acpEnv, agentText, initialize, startAcp, useServiceHomes, waitForToolCall } from './acp-client.js';

const serviceHome = useServiceHomes();

/** `zuno acp` spoken to line by line, without the SDK: every stdout line parsed as JSON (or the test fails). */
function rawAcp(home: string): {
  child: ChildProcess;
  send: (line: string) => void;
  reply: (id: number | null, nth?: number) => Promise<Record<string, unknown>>;
  lines: () => Record<string, unknown>[];
} {
  const child = spawn(process.execPath, [ZUNO_BIN, 'acp'], {
    cwd: home,
    env: acpEnv(home),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  let out = '';
  child.stdout!.setEncoding('utf8').on('data', (d: string) => (out += d));
  child.stderr!.resume();
  const lines = () =>
    out
      .split('\n')
      .filter((l) => l !== '')
      .map((l) => JSON.parse(l) as Record<string, unknown>);
  return {
    child,
    send: (line) => child.stdin!.write(`${line}\n`),
    reply: (id, nth = 0) =>
      waitFor(async () => lines().filter((m) => m.id === id && !('method' in m))[nth], 60_000, `the reply to ${id}`),
    lines,
  };
}

const req = (id: number, method: string, params: unknown) => JSON.stringify({ jsonrpc: '2.0', id, method, params });
const codeOf = (m: Record<string, unknown>) => (m.error as { code?: number } | undefined)?.code;

describe('zuno acp: bad requests get JSON-RPC errors, never a crash', () => {
  it('malformed JSON, unknown methods, unknown sessions, bad cwd, empty prompts', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const acp = rawAcp(home);
    try {
      acp.send('{this is not json');
      expect(codeOf(await acp.reply(null))).toBe(-32700);
      acp.send(req(1, 'initialize', { protocolVersion: 1 }));
      expect((await acp.reply(1)).result).toMatchObject({
        protocolVersion: 1,
        agentCapabilities: { loadSession: true },
      });
      acp.send(req(2, 'frobnicate/now', {}));
      expect(codeOf(await acp.reply(2))).toBe(-32601);
      acp.send(req(3, 'session/prompt', { sessionId: 'ses_nosuchsession', prompt: [{ type: 'text', text: 'hi' }] }));
      expect(codeOf(await acp.reply(3))).toBe(-32002);
      acp.send(req(4, 'session/new', { cwd: join(ws, 'missing-dir'), mcpServers: [] }));
      const badCwd = await acp.reply(4);
      expect(codeOf(badCwd)).toBe(-32602);
      expect(badCwd.error).toMatchObject({ data: { code: 'workspace_invalid' } });
      acp.send(req(5, 'session/new', { cwd: ws, mcpServers: [] }));
      const { sessionId } = (await acp.reply(5)).result as { sessionId: string };
      acp.send(req(6, 'session/prompt', { sessionId, prompt: [{ type: 'text', text: '   ' }] }));
      expect(codeOf(await acp.reply(6))).toBe(-32602);
      acp.send(req(7, 'session/load', { sessionId: 'ses_nosuchsession', cwd: ws, mcpServers: [] }));
      expect(codeOf(await acp.reply(7))).toBe(-32002);
      acp.send(req(8, 'session/prompt', { sessionId }));
      expect(codeOf(await acp.reply(8))).toBe(-32602);
      // Still serving after all of that.
      acp.send(req(9, 'initialize', { protocolVersion: 1 }));
      expect((await acp.reply(9)).result).toMatchObject({ protocolVersion: 1 });
      expect(acp.child.exitCode).toBeNull();
      for (const m of acp.lines()) expect(m.jsonrpc).toBe('2.0');
    } finally {
      const gone = new Promise((r) => acp.child.once('close', r));
      acp.child.stdin!.end();
      await gone;
    }
    expect(acp.child.exitCode).toBe(0);
  }, 120_000);

  it('bad options fail before anything starts: one typed line on stderr, nothing on stdout', async () => {
    const { home } = makeHome();
    for (const [args, code] of [
      [['--model', 'no-slash'], 'usage_error'],
      [['--agent', 'explore'], 'agent_invalid'],
      [['--script', join(home, 'missing.json')], 'script_invalid'],
      [['--script', join(home, 'missing.json'), '--model', 'openai/gpt-4.1'], 'usage_error'],
      [['--config', join(home, 'missing-zuno.json')], 'config_missing'],
    ] as const) {
      expectTypedFailure(await runZuno(['acp', ...args], { home, stdin: '' }), code);
    }
  });

  it('a second prompt while one runs is admitted (steered into the running turn): both answer at its end, in order', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-acp-script-'), 'two.json', {
      replies: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'sleep 3' } }] },
        { text: 'First answered.' },
        { text: 'Second answered.' },
      ],
    });
    const c = startAcp(home, ['--script', script]);
    await initialize(c);
    const { sessionId } = await c.conn.agent.request('session/new', { cwd: ws, mcpServers: [] });
    const order: string[] = [];
    const textAt: Record<string, string> = {};
    const answered =
      (name: string) =>
      <T>(r: T) => {
        order.push(name);
        textAt[name] = agentText(c, sessionId);
        return r;
      };
    const first = c.conn.agent
      .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'first' }] })
      .then(answered('first'));
    await waitForToolCall(c, sessionId, (t) => t.kind === 'execute');
    const second = c.conn.agent
      .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'second' }] })
      .then(answered('second'));
    expect((await first).stopReason).toBe('end_turn');
    expect((await second).stopReason).toBe('end_turn');
    expect(order).toEqual(['first', 'second']);
    // Neither answer came before the turn's last update (SF10).
    expect(textAt.first).toContain('First answered.');
    expect(textAt.second).toContain('First answered.');
    expect(await c.close()).toBe(0);
  }, 240_000);
});
