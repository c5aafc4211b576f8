/**
 * Issue 29 item 1, Must show: an editor drives `zuno acp` as a child process
 * with the official SDK's client: initialize → session/new → session/prompt
 * (a scripted model that makes a Plan, reads a file, patches it and runs a
 * shell command) → message chunks, tool calls with status and content (the
 * patch as `Editing a.ts` with an absolute location and a diff), the Plan,
 * and a completed turn whose answer arrives after all of it; the session is
 * an ordinary one (`zuno session list`). Real dev server, the host worker
 * service, real tools, real SQLite.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { makeWorkspace, runZuno, tempDir, writeJson } from '../cli/helpers.js';
import { agentText, callUpdates, initialize, startAcp, toolCalls, updatesOf, useServiceHomes } from './acp-client.js';

const serviceHome = useServiceHomes();

const PATCH = [
  '*** Begin Patch',
  '*** Update File: src/a.ts',
  '-export const a = 1; // TODO: rename',
  '+export const renamed = 1;',
  '*** End Patch',
].join('\n');

describe('zuno acp: one prompt turn', () => {
  it('streams chunks, tool calls with a diff and the Plan, then answers end_turn; the session is listed', async () => {
    const home = serviceHome();
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-acp-script-'), 'turn.json', {
      replies: [
        {
          text: 'Planning first.',
          toolCalls: [
            {
              name: 'plan_update',
              arguments: { action: 'create', steps: [{ title: 'Read a.ts' }, { title: 'Rename the constant' }] },
            },
          ],
        },
        { toolCalls: [{ name: 'read', arguments: { path: 'src/a.ts' } }] },
        { toolCalls: [{ name: 'apply_patch', arguments: { patch: PATCH } }] },
        { toolCalls: [{ name: 'shell', arguments: { command: 'echo shell-ran' } }] },
        { text: 'Renamed the constant.' },
      ],
    });
    const c = startAcp(home, ['--script', script]);
    const init = await initialize(c);
    expect(init.protocolVersion).toBe(1);
    expect(init.agentCapabilities?.loadSession).toBe(true);
    const { sessionId } = await c.conn.agent.request('session/new', { cwd: ws, mcpServers: [] });
    expect(sessionId).toMatch(/^ses_/);

    const res = await c.conn.agent.request('session/prompt', {
      sessionId,
      prompt: [{ type: 'text', text: 'rename the constant in src/a.ts' }],
    });
    // The answer comes after every update of the turn, the final text included (SF10).
    const seenAtAnswer = updatesOf(c, sessionId).length;
    expect(res.stopReason).toBe('end_turn');
    expect(agentText(c, sessionId)).toContain('Renamed the constant.');
    expect(agentText(c, sessionId)).toContain('Planning first.');

    const calls = toolCalls(c, sessionId);
    const read = calls.find((t) => t.kind === 'read')!;
    expect(read.locations).toEqual([{ path: join(ws, 'src/a.ts') }]);
    expect(callUpdates(c, sessionId, read.toolCallId).at(-1)?.status).toBe('completed');

    const edit = calls.find((t) => t.kind === 'edit')!;
    expect(edit.title).toBe('Editing a.ts');
    expect(edit.locations).toEqual([{ path: join(ws, 'src/a.ts') }]);
    const editEnd = callUpdates(c, sessionId, edit.toolCallId).at(-1)!;
    expect(editEnd.status).toBe('completed');
    expect(editEnd.content).toEqual([
      {
        type: 'diff',
        path: join(ws, 'src/a.ts'),
        oldText: 'export const a = 1; // TODO: rename\n',
        newText: 'export const renamed = 1;\n',
      },
    ]);
    expect(readFileSync(join(ws, 'src/a.ts'), 'utf8')).toBe('export const renamed = 1;\n');

    const shell = calls.find((t) => t.kind === 'execute')!;
    expect(shell.status).toBe('in_progress');
    const shellEnd = callUpdates(c, sessionId, shell.toolCallId).at(-1)!;
    expect(shellEnd.status).toBe('completed');
    expect(JSON.stringify(shellEnd.content)).toContain('shell-ran');

    const plans = updatesOf(c, sessionId).filter((u) => u.sessionUpdate === 'plan');
    expect(plans.length).toBeGreaterThan(0);
    const plan = plans.at(-1)!;
    expect(plan.sessionUpdate === 'plan' && plan.entries.map((e) => e.content)).toEqual([
      'Read a.ts',
      'Rename the constant',
    ]);
    expect(seenAtAnswer).toBeGreaterThan(0);

    const list = await runZuno(['session', 'list'], { home, env: { ZUNO_WORKER: 'service' } });
    expect(list.stdout).toContain(sessionId);
    expect(await c.close()).toBe(0);
    expect(c.stderr()).not.toMatch(/unexpected error|\n\s+at /);
  }, 240_000);
});
