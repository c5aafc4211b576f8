/**
 * MCP tools in a session (issue 30): a scripted session on the real dev
 * server and worker calls tools of the real server-everything over stdio.
 * The Temporal history shows each call's retry policy from its annotations
 * (MC9: read-only → Safe retry, side-effecting → one attempt); a server
 * that dies mid-call leaves a typed unknown outcome and is reconnected by
 * the next call; strict mode asks before a side-effecting MCP call; a deny
 * rule hides a server's tools.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { decideApproval } from '../../client/approvals.js';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { replayExported } from '../helpers/history.js';
import { workflowBundlePath } from '../../worker/workflow-bundle.js';
import { waitFor } from '../helpers/worker-process.js';
import { everythingSpec, guardsOf, sessionConfig, serverUnder, stdioServer } from './helpers.js';

let h: Harness;
let codePath: string;
const cleanups: (() => Promise<unknown>)[] = [];
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
  codePath = await workflowBundlePath(h.stateDir);
});
afterAll(async () => {
  for (const c of cleanups.reverse()) await c().catch(() => undefined);
});

const ws = () => mkdtempSync(join(tmpdir(), 'zuno-mcp-session-'));
const ECHO = 'mcp__everything__echo';
const TOGGLE = 'mcp__everything__toggle-simulated-logging';
const LONG = 'mcp__everything__trigger-long-running-operation';

/** The names of the tools a captured provider request offered (Chat Completions wire). */
function offered(request: unknown): string[] {
  const tools = (request as { tools?: { function: { name: string } }[] }).tools ?? [];
  return tools.map((t) => t.function.name);
}

/** tool_mcp activities as scheduled in the history: summary and retry attempts allowed. */
async function mcpActivities(workflowId: string): Promise<{ summary: string; maximumAttempts: number }[]> {
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  return (history.events ?? []).flatMap((e) => {
    const a = e.activityTaskScheduledEventAttributes;
    if (a?.activityType?.name !== 'tool_mcp') return [];
    const data = e.userMetadata?.summary?.data;
    const summary = data ? (JSON.parse(Buffer.from(data).toString('utf8')) as string) : '';
    return [{ summary, maximumAttempts: a.retryPolicy?.maximumAttempts ?? 0 }];
  });
}

describe('MCP tools in a session (issue 30)', () => {
  it('offers the server’s tools; a read-only call runs with the Safe retry policy, a side-effecting one with one attempt', async () => {
    const run = await h.runSession({
      workspace: ws(),
      prompt: 'echo and toggle',
      mcp: sessionConfig([everythingSpec()]),
      script: {
        replies: [
          {
            toolCalls: [
              { name: ECHO, arguments: { message: 'hello mcp' } },
              { name: TOGGLE, arguments: {} },
            ],
          },
          { text: 'Done.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const names = offered(run.providerRequests[0]);
    expect(names).toEqual(expect.arrayContaining([ECHO, TOGGLE, LONG, 'read', 'shell']));
    expect(names).not.toContain('tool_search'); // nothing deferred: the search tool is not offered
    // MC8: the request tells the model which servers are connected and what they show.
    const system = JSON.stringify((run.providerRequests[0] as { messages: unknown[] }).messages[0]);
    expect(system).toMatch(/- everything: connected, \d+ tools shown as mcp__everything__\*/);
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([
      [ECHO, 'ok'],
      [TOGGLE, 'ok'],
    ]);
    expect(t.toolCalls[0]!.output).toContain('Echo: hello mcp');
    const activities = await mcpActivities(run.workflowId);
    expect(activities).toEqual([
      { summary: expect.stringContaining(ECHO), maximumAttempts: DEFAULT_ACTIVITY_DEFAULTS.safeRetry.maximumAttempts },
      { summary: expect.stringContaining(TOGGLE), maximumAttempts: 1 },
    ]);
    // The shape replays with the current code (and is kept as fixture session-mcp-v1).
    await replayExported(h.address, run.workflowId, codePath, 'session-mcp-v1.json');
    const states = (await h.store.listEvents(run.sessionId, 0, 500)).filter((e) => e.type === 'mcp.server.state');
    // One record: server-everything re-lists after its own list change, but the tools it offers did not change.
    expect(states.map((e) => e.data)).toEqual([
      expect.objectContaining({ server: 'everything', status: 'connected', change: 'connected' }),
    ]);
  }, 120_000);

  it('a server that cannot start is reported failed; the session runs with the other tools', async () => {
    const broken = stdioServer('broken', [join(tmpdir(), 'no-such-mcp-server.js')]);
    const run = await h.runSession({
      workspace: ws(),
      prompt: 'use what works',
      mcp: sessionConfig([broken, everythingSpec()]),
      script: {
        replies: [
          {
            toolCalls: [
              { name: ECHO, arguments: { message: 'still' } },
              { name: 'mcp__broken__anything', arguments: {} },
              { name: 'mcp__everything__no-such-tool', arguments: {} },
            ],
          },
          { text: 'Worked.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const names = offered(run.providerRequests[0]);
    expect(names).toContain(ECHO);
    expect(names.filter((n) => n.startsWith('mcp__broken__'))).toEqual([]);
    const system = JSON.stringify((run.providerRequests[0] as { messages: unknown[] }).messages[0]);
    expect(system).toContain('- broken: configured but not connected');
    const states = (await h.store.listEvents(run.sessionId, 0, 500)).filter((e) => e.type === 'mcp.server.state');
    expect(states.map((e) => e.data)).toContainEqual(
      expect.objectContaining({
        server: 'broken',
        status: 'failed',
        error: expect.stringMatching(/no-such-mcp-server/),
      }),
    );
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([
      [ECHO, 'ok'],
      ['mcp__broken__anything', 'blocked'],
      ['mcp__everything__no-such-tool', 'blocked'],
    ]);
    expect(t.toolCalls[1]!.output).toMatch(/MCP server "broken" is not connected \(.*no-such-mcp-server/);
    // An unknown name lists what the model was offered: the MCP tools too, not tools it was never shown.
    expect(t.toolCalls[2]!.output).toContain(ECHO);
    expect(t.toolCalls[2]!.output).not.toContain('goal_update');
  }, 120_000);

  it('arguments that do not fit the server’s schema are blocked before anything runs (TD8)', async () => {
    const run = await h.runSession({
      workspace: ws(),
      prompt: 'bad echo',
      mcp: sessionConfig([everythingSpec()]),
      script: { replies: [{ toolCalls: [{ name: ECHO, arguments: { msg: 1 } }] }, { text: 'I see.' }] },
    });
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([[ECHO, 'blocked']]);
    expect(t.toolCalls[0]!.output).toMatch(/message: required/);
    expect(await mcpActivities(run.workflowId)).toEqual([]);
  }, 120_000);

  it('the server dies mid-call: a side-effecting call is uncertain (never re-run), the next call reconnects', async () => {
    const spec = everythingSpec({ annotations: 'ignore' }); // every tool SideEffecting, Never
    const run = await h.startScripted({
      workspace: ws(),
      prompt: 'long then echo',
      mcp: sessionConfig([spec]),
      script: {
        replies: [
          { toolCalls: [{ name: LONG, arguments: { duration: 30, steps: 30 } }] },
          { toolCalls: [{ name: ECHO, arguments: { message: 'again' } }] },
          { text: 'Recovered.' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    await waitFor(
      async () => (await h.store.listEvents(run.sessionId, 0, 200)).some((e) => e.type === 'tool.started'),
      60_000,
      'the long call to start',
    );
    const guards = guardsOf(process.pid);
    expect(guards.length).toBeGreaterThan(0);
    for (const guard of guards) process.kill(serverUnder(guard), 'SIGKILL');
    const result = await run.result();
    expect(result.status).toBe('completed');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome, c.errorCode, c.attempts])).toEqual([
      [LONG, 'uncertain', 'mcp_lost_outcome', 1],
      [ECHO, 'ok', null, 1],
    ]);
    expect(t.toolCalls[1]!.output).toContain('Echo: again');
    expect((await mcpActivities(run.workflowId)).map((a) => a.maximumAttempts)).toEqual([1, 1]);
  }, 120_000);
});

describe('MCP permissions (issue 30 item 4)', () => {
  it('strict mode asks before the side-effecting MCP call, never before the read-only one', async () => {
    const run = await h.startScripted({
      workspace: ws(),
      prompt: 'echo and toggle, strictly',
      mcp: sessionConfig([everythingSpec()]),
      permission: { mode: 'strict', rules: [] },
      script: {
        replies: [
          {
            toolCalls: [
              { name: ECHO, arguments: { message: 'free' } },
              { name: TOGGLE, arguments: {} },
            ],
          },
          { text: 'Both ran.' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    const row = await waitFor(
      async () => (await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' }))[0],
      60_000,
      'a pending approval',
    );
    expect(row.tool).toBe(TOGGLE);
    // The read-only call did not wait for anyone.
    const before = (await h.store.loadTranscript(run.sessionId))!.toolCalls;
    expect(before.find((c) => c.tool === ECHO)?.outcome).toBe('ok');
    await decideApproval(h.client, row, { decision: 'approve_once' });
    expect((await run.result()).status).toBe('completed');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([
      [ECHO, 'ok'],
      [TOGGLE, 'ok'],
    ]);
    const approvals = await h.store.listApprovals({ sessionId: run.sessionId });
    expect(approvals.map((a) => a.tool)).toEqual([TOGGLE]);
  }, 120_000);

  it('a deny rule mcp__everything__* hides the server’s tools and blocks a call by name', async () => {
    const run = await h.runSession({
      workspace: ws(),
      prompt: 'try anyway',
      mcp: sessionConfig([everythingSpec()]),
      permission: { mode: 'standard', rules: [{ tool: 'mcp__everything__*', action: 'deny' }] },
      script: { replies: [{ toolCalls: [{ name: ECHO, arguments: { message: 'x' } }] }, { text: 'Not allowed.' }] },
    });
    expect(run.result.status).toBe('completed');
    const names = offered(run.providerRequests[0]);
    expect(names.filter((n) => n.startsWith('mcp__'))).toEqual([]);
    expect(names).toContain('read');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([[ECHO, 'blocked']]);
    expect(t.toolCalls[0]!.output).toContain('may not be called in this session: a permission rule denies it');
    const blocked = (await h.store.listEvents(run.sessionId, 0, 500)).find((e) => e.type === 'tool.dispatch.blocked');
    expect(blocked?.data).toMatchObject({ tool: ECHO, category: 'denied' });
    expect(await mcpActivities(run.workflowId)).toEqual([]);
  }, 120_000);
});
