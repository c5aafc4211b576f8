/**
 * The `tool_mcp` activity on a real worker and Temporal server (issue 30
 * item 3), calling `@modelcontextprotocol/server-everything`: the call's
 * record (row, result), an image kept as an artifact, a lost `Never` call
 * recorded uncertain after one attempt, a lost `Safe` call retried by
 * Temporal, arguments re-read from the projection, and `tool_search`
 * reaching the session's servers through the same hub.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { recordPlanned } from '../../activities/session/tool-records.js';
import { newSessionId } from '../../client/session-start.js';
import { EV } from '../../core/events.js';
import type { McpServerSpec, McpSessionConfig, McpToolFacts } from '../../core/mcp/types.js';
import {
  MCP_TOOL_ACTIVITY,
  type ToolActivityInput,
  type ToolActivityResult,
} from '../../core/session/tool-activity.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { TEST_WORKFLOWS_PATH } from '../helpers/time-skipping.js';
import { EVERYTHING, sessionConfig, stdioServer } from './helpers.js';

let h: Harness;
let workspace: string;

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress'), workflowsPath: TEST_WORKFLOWS_PATH });
  workspace = mkdtempSync(join(tmpdir(), 'zuno-mcp-activity-'));
});
afterAll(async () => {
  await h?.close();
  rmSync(workspace, { recursive: true, force: true });
});

const everything = (more: Partial<McpServerSpec> = {}) => stdioServer('everything', [EVERYTHING, 'stdio'], more);
const ro = (tool: string): McpToolFacts => ({
  server: 'everything',
  tool,
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
});
const never = (tool: string): McpToolFacts => ({
  server: 'everything',
  tool,
  effect: 'SideEffecting',
  replay: 'Never',
  concurrency: 'Exclusive',
});

/** Runs one call as activity `activity` in a fresh session; returns the result, the row and the history's attempts. */
async function run(
  name: string,
  args: Record<string, unknown>,
  opts: {
    facts?: McpToolFacts;
    server?: McpServerSpec;
    activity?: string;
    attempts?: number;
    byRef?: boolean;
    config?: Partial<McpSessionConfig>;
  },
) {
  const sessionId = newSessionId();
  const rowId = 'tc_0_0_0';
  const identity = { id: rowId, sessionId, turn: 0, step: 0, position: 0, callId: 'call_0', tool: name };
  await recordPlanned(h.store, { ...identity, argsJson: JSON.stringify(args) }, { messageId: 'm', atMs: Date.now() });
  const input: ToolActivityInput = {
    sessionId,
    workspace,
    turn: 0,
    step: 0,
    call: {
      rowId,
      position: 0,
      index: 0,
      callId: 'call_0',
      name,
      ...(opts.byRef ? { argsInProjection: true } : { args }),
      ...(opts.facts ? { mcp: opts.facts } : {}),
    },
    mcp: sessionConfig([opts.server ?? everything()], opts.config),
  };
  const workflowId = `mcp-activity-${sessionId}`;
  const result = (await h.client.workflow.execute('toolActivityWorkflow', {
    workflowId,
    taskQueue: h.taskQueue,
    args: [opts.activity ?? MCP_TOOL_ACTIVITY, input, opts.attempts ?? 1],
  })) as ToolActivityResult | { failedType: string };
  const history = await h.client.workflow.getHandle(workflowId).fetchHistory();
  const attempts = (history.events ?? []).flatMap((e) =>
    e.activityTaskStartedEventAttributes ? [e.activityTaskStartedEventAttributes.attempt ?? 1] : [],
  );
  const row = (await h.store.getToolCall(sessionId, rowId))!;
  return { sessionId, result, row, attempts };
}

describe('tool_mcp', () => {
  it('runs an MCP call and records its result', async () => {
    const r = await run('mcp__everything__echo', { message: 'through temporal' }, { facts: ro('echo') });
    expect(r.result).toMatchObject({ outcome: 'ok', status: 'ok' });
    expect(r.row).toMatchObject({ status: 'completed', outcome: 'ok', tool: 'mcp__everything__echo' });
    expect(r.row.output).toBe('Echo: through temporal');
  });

  it('re-reads arguments that travelled by reference as plain JSON', async () => {
    const r = await run('mcp__everything__echo', { message: 'by reference' }, { facts: ro('echo'), byRef: true });
    expect(r.row.output).toBe('Echo: by reference');
  });

  it('keeps an image as an artifact referenced in the recorded output', async () => {
    const r = await run('mcp__everything__get-tiny-image', {}, { facts: ro('get-tiny-image') });
    expect(r.row.outcome).toBe('ok');
    const path = /stored as artifact (\S+\.png)/.exec(r.row.output ?? '')?.[1];
    expect(path).toBeDefined();
    expect(existsSync(path!)).toBe(true);
  });

  it('a server-side error is mcp_call_failed', async () => {
    const r = await run('mcp__everything__echo', {}, { facts: ro('echo') });
    expect(r.result).toMatchObject({ outcome: 'error', errorCode: 'mcp_call_failed' });
  });

  it('a lost Never call is uncertain (mcp_lost_outcome) after one attempt', async () => {
    const server = everything({ callTimeoutMs: 300 });
    const r = await run(
      'mcp__everything__trigger-long-running-operation',
      { duration: 3, steps: 3 },
      { facts: never('trigger-long-running-operation'), server, attempts: 3 },
    );
    expect(r.result).toMatchObject({ outcome: 'uncertain', errorCode: 'mcp_lost_outcome' });
    expect(r.attempts).toEqual([1]);
    expect(r.row.output).toContain('not run again');
  });

  it('a lost Safe call fails its attempt retryably: Temporal runs it again', async () => {
    const server = everything({ callTimeoutMs: 300 });
    const r = await run(
      'mcp__everything__trigger-long-running-operation',
      { duration: 3, steps: 3 },
      { facts: ro('trigger-long-running-operation'), server, attempts: 2 },
    );
    expect(r.result).toEqual({ failedType: 'mcp_lost_outcome' });
    // One ActivityTaskStarted (the last attempt's) is in history; its attempt number counts the retries.
    expect(r.attempts.at(-1)).toBe(2);
  });

  it('tool_search reaches the session servers through the same hub and records the exposure', async () => {
    const r = await run(
      'tool_search',
      { query: 'echo' },
      { activity: 'tool_tool_search', config: { budget: { tools: 0, bytes: 0 } } },
    );
    expect(r.result).toMatchObject({ outcome: 'ok' });
    expect(r.row.output).toContain('mcp__everything__echo');
    const events = await h.store.eventsOfType(r.sessionId, EV.mcpToolsExposed);
    expect(events.map((e) => e.id)).toEqual(['tc_0_0_0:exposed']);
  });
});
