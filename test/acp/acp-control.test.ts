/**
 * Issue 29 item 1, Must show (control): in strict mode a shell call becomes
 * `session/request_permission` with the exact command and the options allow
 * once / allow for the session / reject — `allow_once` runs it once,
 * `reject` blocks it; `session/cancel` mid-shell interrupts the turn, the
 * prompt answers `cancelled` and the call's update carries the verdict
 * `zuno session show` prints (SF13); a client that disconnects mid-turn
 * cancels nothing (SF9): a new connection's `session/load` replays the
 * session and sees its end. Real dev server, host worker service, real shell.
 */
import { existsSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, markerLines, runZuno, tempDir, writeJson } from '../cli/helpers.js';
import { waitFor } from '../helpers/worker-process.js';
import {
  agentText,
  callUpdates,
  initialize,
  startAcp,
  updatesOf,
  useServiceHomes,
  waitForToolCall,
} from './acp-client.js';

const serviceHome = useServiceHomes();

/** A script file of `replies`. */
function script(replies: unknown[]): string {
  return writeJson(tempDir('zuno-acp-script-'), 'script.json', { replies });
}

const shell = (command: string) => ({ toolCalls: [{ name: 'shell', arguments: { command } }] });

describe('zuno acp: approvals, cancel, reconnect', () => {
  it('strict mode: request_permission shows the exact command; allow_once runs it once, reject blocks it', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    writeFileSync(join(ws, 'zuno.json'), JSON.stringify({ permission: { mode: 'strict' } }));
    const c = startAcp(home, [
      '--script',
      script([shell('echo one >> one.txt'), shell('echo two >> two.txt'), { text: 'Done.' }]),
    ]);
    await initialize(c);
    const { sessionId } = await c.conn.agent.request('session/new', { cwd: ws, mcpServers: [] });
    const answers = ['approve_once', 'deny'];
    c.onPermission = () => ({ outcome: { outcome: 'selected', optionId: answers.shift()! } });
    const res = await c.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'write two notes' }],
    });
    expect(res.stopReason).toBe('end_turn');
    expect(c.permissions.map((p) => p.toolCall.title)).toEqual(['echo one >> one.txt', 'echo two >> two.txt']);
    expect(c.permissions[0]!.options.map((o) => [o.optionId, o.kind])).toEqual([
      ['approve_once', 'allow_once'],
      ['approve_session', 'allow_always'],
      ['deny', 'reject_once'],
    ]);
    expect(markerLines(ws, 'one.txt', 'one')).toBe(1);
    expect(existsSync(join(ws, 'two.txt'))).toBe(false);
    // Decided through the same durable Update as `zuno approvals`: the rows say so.
    const db = new Database(join(home, 'zuno.db'), { readonly: true, fileMustExist: true });
    try {
      const rows = db
        .prepare('SELECT decision FROM approvals WHERE sessionId = ? ORDER BY requestedAtMs')
        .all(sessionId) as { decision: string }[];
      expect(rows.map((r) => r.decision)).toEqual(['approve_once', 'deny']);
    } finally {
      db.close();
    }
    expect(agentText(c, sessionId)).toContain('Done.');
    expect(await c.close()).toBe(0);
  }, 240_000);

  it('session/cancel mid-shell: the prompt answers cancelled; the call shows the verdict session show prints', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const c = startAcp(home, ['--script', script([shell('sleep 60; echo late >> late.txt'), { text: 'No.' }])]);
    await initialize(c);
    const { sessionId } = await c.conn.agent.request('session/new', { cwd: ws, mcpServers: [] });
    const prompt = c.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'sleep a while' }],
    });
    const call = await waitForToolCall(c, sessionId, (t) => t.kind === 'execute');
    await c.conn.agent.notify('session/cancel', { sessionId });
    expect((await prompt).stopReason).toBe('cancelled');
    const last = callUpdates(c, sessionId, call.toolCallId).at(-1)!;
    expect(last.status).toBe('failed');
    const text = (last.content ?? [])
      .map((b) => (b.type === 'content' && b.content.type === 'text' ? b.content.text : ''))
      .join('\n');
    expect(text).not.toBe('');
    // SF13: the last update is the durable tool.dispatch.interrupted event's verdict.
    expect(last.rawOutput).toMatchObject({ outcome: 'uncertain', verdict: text });
    const show = await runZuno(['session', 'show', sessionId], { home, env: { ZUNO_WORKER: 'service' } });
    expect(show.code, show.stderr).toBe(0);
    for (const line of text.split('\n').filter((l) => l.trim() !== '')) expect(show.stdout).toContain(line.trim());
    expect(markerLines(ws, 'late.txt', 'late')).toBe(0);
    expect(await c.close()).toBe(0);
  }, 240_000);

  it('a client gone mid-turn cancels nothing: session/load on a new connection replays it and sees the end', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const c1 = startAcp(home, [
      '--script',
      script([shell('sleep 4; echo ran >> m.txt'), { text: 'Finished after the shell.' }]),
    ]);
    await initialize(c1);
    const { sessionId } = await c1.conn.agent.request('session/new', { cwd: ws, mcpServers: [] });
    const lost = c1.conn.agent
      .request('session/prompt', { sessionId, prompt: [{ type: 'text', text: 'run the slow command' }] })
      .catch((err: unknown) => err);
    await waitForToolCall(c1, sessionId, (t) => t.kind === 'execute');
    await c1.kill();
    expect(await lost).toBeInstanceOf(Error);

    const c2 = startAcp(home);
    await initialize(c2);
    await c2.conn.agent.request('session/load', { sessionId, cwd: ws, mcpServers: [] });
    const replayed = updatesOf(c2, sessionId);
    expect(replayed[0]).toMatchObject({
      sessionUpdate: 'user_message_chunk',
      content: { type: 'text', text: 'run the slow command' },
    });
    const call = replayed.find((u) => u.sessionUpdate === 'tool_call' && u.kind === 'execute');
    expect(call).toBeDefined();
    await waitFor(
      async () => agentText(c2, sessionId).includes('Finished after the shell.'),
      120_000,
      'the end of the turn on the new connection',
    );
    const ended = callUpdates(c2, sessionId, call!.sessionUpdate === 'tool_call' ? call!.toolCallId : '');
    expect(ended.at(-1)?.status).toBe('completed');
    expect(markerLines(ws, 'm.txt', 'ran')).toBe(1);
    // Each update once: the replay and the live stream never overlap.
    const ids = updatesOf(c2, sessionId).filter((u) => u.sessionUpdate === 'tool_call');
    expect(ids).toHaveLength(1);
    expect(await c2.close()).toBe(0);
  }, 240_000);
});
