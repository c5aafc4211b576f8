/**
 * `tool_search` and the durable exposure ledger (MC2, MC3, MC6; issue 30
 * item 5): a server with more tools than the `auto` budget is deferred —
 * its schemas are withheld and `tool_search` is offered; a match is
 * callable from the next step; the exposure is restored from the
 * projection before the first request of a new run (what continue-as-new
 * and reopening start) on a new worker with no MCP connection yet; with
 * `tool_search` off every schema stays visible. Real dev server, real
 * workers, server-everything over stdio.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, inject, it } from 'vitest';
import type { SessionWorkflowInput } from '../../core/session/meta.js';
import type { SessionResult } from '../../core/session/outcome.js';
import { startLocalProvider } from '../../local-provider/server.js';
import { createHarness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { startTestDevServer } from '../helpers/dev-server.js';
import { waitFor } from '../helpers/worker-process.js';
import { submitInput } from '../../client/session-start.js';
import { everythingSpec, sessionConfig } from './helpers.js';

const cleanups = useCleanups();
const ECHO = 'mcp__everything__echo';
const SMALL_BUDGET = { tools: 2, bytes: 48 * 1024 };

function offered(request: unknown): string[] {
  return ((request as { tools?: { function: { name: string } }[] }).tools ?? []).map((t) => t.function.name);
}

describe('tool_search (MC2, MC3, MC6)', () => {
  it('a deferred server is found by search, callable from the next step, and its exposure survives a new worker and a new run', async () => {
    const address = inject('temporalAddress');
    const stateDir = mkdtempSync(join(tmpdir(), 'zuno-tool-search-home-'));
    const taskQueue = `zuno-tool-search-${Date.now()}`;
    const h1 = await createHarness({ address, stateDir, taskQueue });
    cleanups.push(() => h1.close());
    const workspace = mkdtempSync(join(tmpdir(), 'zuno-tool-search-'));
    const mcp = sessionConfig([everythingSpec()], { budget: SMALL_BUDGET });
    const run = await h1.runSession({
      workspace,
      prompt: 'echo through MCP',
      mcp,
      script: {
        replies: [
          { toolCalls: [{ name: 'tool_search', arguments: { query: 'echo' } }] },
          { toolCalls: [{ name: ECHO, arguments: { message: 'found' } }] },
          { text: 'Echoed.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const [first, second] = run.providerRequests.map(offered);
    expect(first).toContain('tool_search');
    expect(first!.filter((n) => n.startsWith('mcp__'))).toEqual([]);
    const system = JSON.stringify((run.providerRequests[0] as { messages: unknown[] }).messages[0]);
    expect(system).toMatch(
      /- everything: connected, 0 tools shown as mcp__everything__\*, \d+ more found only with tool_search/,
    );
    expect(second).toContain(ECHO);
    const t = (await h1.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([
      ['tool_search', 'ok'],
      [ECHO, 'ok'],
    ]);
    expect(t.toolCalls[0]!.output).toContain(ECHO);
    const ledger = (await h1.store.listEvents(run.sessionId, 0, 500)).filter((e) => e.type === 'mcp.tools.exposed');
    expect(ledger.map((e) => e.data)).toEqual([
      expect.objectContaining({
        query: 'echo',
        revision: 1,
        tools: [{ name: ECHO, server: 'everything', tool: 'echo' }],
      }),
    ]);
    await h1.close();

    // A new worker (no connection, an empty hub) and a new run of the session with its carried state.
    const h2 = await createHarness({ address, stateDir, taskQueue });
    cleanups.push(() => h2.close());
    const server = await startLocalProvider({ script: { replies: [{ text: 'Still here.' }] } });
    cleanups.push(() => server.close());
    const base = (await h2.client.workflow.getHandle(run.workflowId).fetchHistory()).events![0]!
      .workflowExecutionStartedEventAttributes!.input!.payloads![0]!;
    const started = JSON.parse(Buffer.from(base.data!).toString('utf8')) as SessionWorkflowInput;
    const input: SessionWorkflowInput = {
      meta: { ...started.meta, provider: { ...started.meta.provider, baseUrl: server.url } },
      exitWhenIdle: true,
      carried: {
        nextTurn: 1,
        nextInputSeq: 1,
        pending: [{ inputId: 'in_1', text: 'Go on.', admission: 'driven', admittedAtMs: Date.now() }],
        seenClientIds: [],
        lastFinalText: null,
      },
    };
    const handle = await h2.client.workflow.start('sessionWorkflow', {
      workflowId: run.workflowId,
      taskQueue,
      args: [input],
    });
    expect(((await handle.result()) as SessionResult).status).toBe('completed');
    // MC3: restored before the first request of the new run, without searching again.
    expect(offered(server.requests[0])).toEqual(expect.arrayContaining([ECHO, 'tool_search']));
  }, 180_000);

  it('the exposure survives a real continue-as-new: the next run offers the tool before any search', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zuno-tool-search-can-'));
    const server = await startTestDevServer(join(dir, 'temporal.db'), ['limit.historyCount.suggestContinueAsNew=20']);
    cleanups.push(() => server.kill());
    const h = await createHarness({ address: server.address });
    cleanups.push(() => h.close());
    const run = await h.startScripted({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-tool-search-can-ws-')),
      prompt: 'echo through MCP',
      exitWhenIdle: false,
      mcp: sessionConfig([everythingSpec()], { budget: SMALL_BUDGET }),
      script: {
        replies: [
          { toolCalls: [{ name: 'tool_search', arguments: { query: 'echo' } }] },
          { toolCalls: [{ name: ECHO, arguments: { message: 'found' } }] },
          { text: 'Echoed.' },
          { text: 'Still here.' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());
    const handle = h.client.workflow.getHandle(run.workflowId);
    cleanups.push(() => handle.terminate('test over'));
    const firstRun = (await handle.describe()).runId;
    await waitFor(async () => (await handle.describe()).runId !== firstRun, 60_000, 'the session to continue as new');
    const first = await h.client.workflow.getHandle(run.workflowId, firstRun).fetchHistory();
    expect(first.events!.at(-1)!.workflowExecutionContinuedAsNewEventAttributes).toBeTruthy();
    await submitInput(h.client, run.sessionId, { text: 'anything new?' });
    await waitFor(async () => run.providerRequests.length >= 4, 60_000, 'the next turn’s request');
    expect(offered(run.providerRequests[3])).toEqual(expect.arrayContaining([ECHO, 'tool_search']));
  }, 180_000);

  it('tool_search never finds a tool a whole-tool rule denies (MC1)', async () => {
    const h = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const run = await h.runSession({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-tool-search-deny-')),
      prompt: 'search',
      mcp: sessionConfig([everythingSpec()], { budget: SMALL_BUDGET }),
      permission: { mode: 'standard', rules: [{ tool: ECHO, action: 'deny' }] },
      script: {
        replies: [{ toolCalls: [{ name: 'tool_search', arguments: { query: 'echo', limit: 20 } }] }, { text: 'None.' }],
      },
    });
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([['tool_search', 'ok']]);
    expect(t.toolCalls[0]!.output).not.toContain(ECHO);
    const ledger = (await h.store.listEvents(run.sessionId, 0, 500)).filter((e) => e.type === 'mcp.tools.exposed');
    expect(JSON.stringify(ledger.map((e) => e.data))).not.toContain(ECHO);
  }, 120_000);

  it('with tool_search off, every schema stays visible however many there are (MC6)', async () => {
    const h = await createHarness({ address: inject('temporalAddress') });
    cleanups.push(() => h.close());
    const run = await h.runSession({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-tool-search-off-')),
      prompt: 'list',
      mcp: sessionConfig([everythingSpec()], { budget: SMALL_BUDGET, toolSearch: false }),
      script: {
        replies: [{ toolCalls: [{ name: 'tool_search', arguments: { query: 'echo' } }] }, { text: 'Listed.' }],
      },
    });
    const names = offered(run.providerRequests[0]);
    expect(names).not.toContain('tool_search');
    expect(names).toContain(ECHO);
    // Not offered, not callable: blocked with the list the request offered.
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([['tool_search', 'blocked']]);
    expect(t.toolCalls[0]!.output).toContain('Tool "tool_search" is not available. Available tools:');
    expect(t.toolCalls[0]!.output).toContain(ECHO);
  }, 120_000);
});
