import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { activityRuns } from '../helpers/history.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { TEMPORAL_BIN } from '../helpers/dev-server.js';

let h: Harness;
let workspace: string;

beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  workspace = mkdtempSync(join(tmpdir(), 'zuno-ws-'));
  mkdirSync(join(workspace, 'src'));
  writeFileSync(join(workspace, 'src', 'a.ts'), 'export const a = 1; // TODO: rename\n');
  writeFileSync(join(workspace, 'src', 'b.ts'), 'export const b = 2;\n');
});
afterAll(async () => {
  await h?.close();
});

/** Activities a workflow ran (regular and local), in history order. */
const scheduledActivities = (workflowId: string) => activityRuns(h.client, workflowId);

describe('session workflow on a real Temporal server', () => {
  it('greps, reads and answers; the projection holds the whole transcript', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'Find the TODO and tell me where it is',
      script: {
        replies: [
          { text: 'Searching.', toolCalls: [{ name: 'grep', arguments: { pattern: 'TODO', path: 'src' } }] },
          { toolCalls: [{ name: 'read', arguments: { path: 'src/a.ts' } }] },
          { text: 'The TODO is in src/a.ts line 1.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.session.status).toBe('completed');
    expect(t.session.finalText).toBe('The TODO is in src/a.ts line 1.');
    expect(t.toolCalls.map((c) => [c.tool, c.outcome])).toEqual([
      ['grep', 'ok'],
      ['read', 'ok'],
    ]);
    expect(t.toolCalls[0]!.output).toContain('a.ts');
    expect(t.toolCalls[1]!.output).toContain('TODO: rename');
    expect(
      (t.toolCalls[1]!.result as { sha256?: string } | null)?.sha256 ?? JSON.stringify(t.toolCalls[1]!.result),
    ).toMatch(/[0-9a-f]{64}/);
    // Each part exactly once, ids as PR9 prescribes.
    const ids = t.parts.map((p) => p.id);
    expect(new Set(ids).size).toBe(ids.length);
    for (const id of ids) expect(id).toMatch(/^prt_\d+_\d+_\d+_(text|reasoning|tool_call|tool_result)$/);
    expect(t.inputs).toHaveLength(1);
    expect(t.inputs[0]!.state).toBe('completed');
    // The second model request carried the grep result back to the model.
    const second = JSON.stringify(run.providerRequests[1]);
    expect(second).toContain('a.ts');
    // The ops view: search attributes and readable activity summaries.
    const desc = await h.client.workflow.getHandle(run.workflowId).describe();
    expect(desc.typedSearchAttributes.getAll().map((p) => [p.key.name, p.value])).toEqual(
      expect.arrayContaining([
        ['ZunoKind', 'session'],
        ['ZunoSessionId', run.sessionId],
      ]),
    );
    const acts = await scheduledActivities(run.workflowId);
    expect(acts.map((a) => a.type)).toEqual([
      'modelStep',
      'tool_grep',
      'modelStep',
      'tool_read',
      'modelStep',
      'finishTurn',
    ]);
    expect(acts.find((a) => a.type === 'tool_grep')!.summary).toBe('grep: TODO in src');
    // Short reads and a fast turn's finishTurn run as local activities (issue 13); model steps are regular ones.
    expect(acts.filter((a) => a.local).map((a) => a.type)).toEqual(['tool_grep', 'tool_read', 'finishTurn']);
  });

  it('the real temporal CLI finds the session by its search attributes', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'say hi',
      script: { replies: [{ text: 'hi' }] },
    });
    const cli = (...args: string[]) =>
      execFileSync(TEMPORAL_BIN, [...args, '--address', h.address, '--output', 'json'], { encoding: 'utf8' });
    const described = JSON.parse(cli('workflow', 'describe', '--workflow-id', run.workflowId));
    expect(JSON.stringify(described)).toContain('ZunoSessionId');
    expect(JSON.stringify(described)).toContain(run.sessionId);
    // Visibility is eventually consistent: poll the list briefly.
    let listed = '';
    for (let i = 0; i < 50 && !listed.includes(run.workflowId); i++) {
      listed = cli('workflow', 'list', '--query', `ZunoKind='session' AND ZunoSessionId='${run.sessionId}'`);
      if (!listed.includes(run.workflowId)) await new Promise((r) => setTimeout(r, 200));
    }
    expect(listed).toContain(run.workflowId);
  });

  it('malformed arguments and an unknown tool are blocked results that schedule no activity (TD8)', async () => {
    const run = await h.runSession({
      workspace,
      prompt: 'try some bad calls',
      script: {
        replies: [
          {
            toolCalls: [
              { name: 'grep', arguments: '{"pattern": ' },
              { name: 'grep', arguments: { pattern: 42 } },
              { name: 'launch_rockets', arguments: {} },
              { name: 'glob', arguments: { pattern: 'src/*.ts' } },
            ],
          },
          { text: 'done' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => [c.tool, c.outcome, c.blockedCategory ?? null])).toEqual([
      ['grep', 'blocked', 'invalid_arguments'],
      ['grep', 'blocked', 'invalid_arguments'],
      ['launch_rockets', 'blocked', 'unavailable'],
      ['glob', 'ok', null],
    ]);
    expect(t.toolCalls[0]!.argsJson).toBe('{"pattern": ');
    const acts = await scheduledActivities(run.workflowId);
    expect(acts.map((a) => a.type)).toEqual(['modelStep', 'tool_glob', 'modelStep', 'finishTurn']);
    // The model saw every blocked result, paired with its call id.
    const second = run.providerRequests[1] as { messages: { role: string; tool_call_id?: string; content?: string }[] };
    const toolMsgs = second.messages.filter((m) => m.role === 'tool');
    expect(toolMsgs).toHaveLength(4);
    expect(toolMsgs[2]!.content).toContain('launch_rockets');
    const events = await h.store.listEvents(run.sessionId, 0, 1000);
    expect(events.filter((e) => e.type === 'tool.dispatch.blocked')).toHaveLength(3);
  });

  it('large tool arguments travel by reference to the projection, not through history', async () => {
    const content = `${'x'.repeat(99)}\n`.repeat(3000); // 300 000 bytes
    const run = await h.runSession({
      workspace,
      prompt: 'write a big file',
      script: {
        replies: [{ toolCalls: [{ name: 'write', arguments: { path: 'big.txt', content } }] }, { text: 'written' }],
      },
    });
    expect(run.result.status).toBe('completed');
    expect(readFileSync(join(workspace, 'big.txt'), 'utf8')).toBe(content);
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls[0]!.outcome).toBe('ok');
    const history = await h.client.workflow.getHandle(run.workflowId).fetchHistory();
    const biggest = Math.max(
      ...(history.events ?? []).map((e) =>
        Math.max(
          ...(e.activityTaskScheduledEventAttributes?.input?.payloads ?? []).map((p) => p.data?.length ?? 0),
          ...(e.activityTaskCompletedEventAttributes?.result?.payloads ?? []).map((p) => p.data?.length ?? 0),
        ),
      ),
    );
    expect(biggest).toBeLessThan(64 * 1024);
    const acts = await scheduledActivities(run.workflowId);
    expect(acts.find((a) => a.type === 'tool_write')!.summary).toBe('write: big.txt');
  });

  it('runs parallel-safe calls together and persists results in call order (TD5)', async () => {
    const calls = Array.from({ length: 6 }, (_, i) => ({
      name: i % 2 === 0 ? 'grep' : 'glob',
      arguments: i % 2 === 0 ? { pattern: 'export', path: 'src' } : { pattern: `src/${i % 3 === 0 ? 'a' : 'b'}.ts` },
    }));
    const run = await h.runSession({
      workspace,
      prompt: 'many calls',
      toolConcurrency: 3,
      script: { replies: [{ toolCalls: calls }, { text: 'ok' }] },
    });
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.toolCalls.map((c) => c.position)).toEqual([...t.toolCalls.map((c) => c.position)].sort((a, b) => a - b));
    expect(t.toolCalls.every((c) => c.outcome === 'ok')).toBe(true);
    const second = run.providerRequests[1] as { messages: { role: string; tool_call_id?: string }[] };
    const first = run.providerRequests[0] as unknown;
    expect(first).toBeTruthy();
    const ids = second.messages.filter((m) => m.role === 'tool').map((m) => m.tool_call_id);
    const asked = (
      second.messages.find((m) => m.role === 'assistant') as unknown as { tool_calls: { id: string }[] }
    ).tool_calls.map((c) => c.id);
    expect(ids).toEqual(asked);
    // Overlap: with a limit of 3, the first two greps (positions 0 and 2) ran at the same time.
    const greps = t.toolCalls.filter((c) => c.tool === 'grep');
    expect(greps[1]!.startedAtMs!).toBeLessThan(greps[0]!.endedAtMs!);
  });
});
