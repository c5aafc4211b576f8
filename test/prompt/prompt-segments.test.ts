import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { agentRole, catalogFor } from '../../core/agents.js';
import { EV, parseEventData } from '../../core/events.js';
import { declaredTools } from '../../core/tools/registry.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { gitWorkspace, seatThread, startScriptedCouncil, synthesisThread, validReport } from '../council/helpers.js';

/**
 * Issue 32 Must show: the system segments of a build, a plan, a Goal and a
 * Council-seat request — ids, order and provenance as the prompt receipt
 * (`session.prompt`) records them before the request is sent, each text
 * stored once per digest (`prompt.segment`) and equal to what the provider
 * received — and `runtime.execution` naming only offered tools (RT8).
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => h?.close());

const ALL = Object.keys(declaredTools);
const workspace = () => mkdtempSync(join(tmpdir(), 'zuno-prompt-'));

type Receipt = ReturnType<typeof receiptOf>;

/** The first prompt receipt of a session and the stored text of each of its segments. */
async function firstPrompt(sessionId: string) {
  const events = await h.store.listEvents(sessionId, 0, 10_000);
  const receipts = events.filter((e) => e.type === EV.promptAssembled);
  expect(receipts.length).toBeGreaterThan(0);
  const r = receiptOf(receipts[0]!.data);
  const texts = new Map<string, string>();
  for (const e of events.filter((x) => x.type === EV.promptSegment)) {
    const d = parseEventData(EV.promptSegment, e.data)!;
    texts.set(`${d.segment}:${d.sha256}`, d.text);
  }
  const text = (id: string) => {
    const s = r.segments.find((x) => x.id === id);
    return s ? texts.get(`${s.id}:${s.sha256}`) : undefined;
  };
  return { r, text, all: r.segments.map((s) => texts.get(`${s.id}:${s.sha256}`)) };
}

function receiptOf(data: unknown) {
  return parseEventData(EV.promptAssembled, data)!;
}

const ids = (r: Receipt) => r.segments.map((s) => s.id);
const source = (r: Receipt, id: string) => r.segments.find((s) => s.id === id)?.source;

/** RT8: no declared tool the request did not offer is named (in backticks) by its execution rules. */
function expectNamesOnlyOffered(execution: string, offered: readonly string[]) {
  for (const tool of ALL.filter((t) => !offered.includes(t))) expect(execution).not.toContain(`\`${tool}\``);
}

/** The one system message a Chat Completions request carried (the segments joined). */
function systemText(request: unknown): string {
  const messages = (request as { messages: { role: string; content: string }[] }).messages;
  return messages.filter((m) => m.role === 'system').map((m) => m.content)[0] ?? '';
}

describe('the prompt receipt of a request (SE9, SE28)', () => {
  it('build: base, role, execution, environment, in order, from their files; the texts are what the provider got', async () => {
    const run = await h.runSession({ workspace: workspace(), prompt: 'hello', script: { replies: [{ text: 'hi' }] } });
    const { r, text, all } = await firstPrompt(run.sessionId);
    const family = ids(r).includes('system.family') ? ['system.family'] : [];
    expect(ids(r)).toEqual([
      'system.base',
      ...family,
      'system.agent',
      'runtime.execution',
      'runtime.reports',
      'runtime.environment',
    ]);
    expect(source(r, 'runtime.reports')).toBe('prompts/reports.md');
    expect(source(r, 'system.base')).toBe('prompts/base.md');
    expect(source(r, 'system.agent')).toBe('prompts/roles/build.md');
    expect(source(r, 'runtime.execution')).toMatch(/^generated from the offered tools: prompts\/execution\/\{always,/);
    expect(r.tools).toContain('shell');
    expect(source(r, 'runtime.execution')).toMatch(/[{,]shell[,}]/);
    expect(text('runtime.environment')).toMatch(/^# Environment\n- Workspace: \//);
    for (const s of r.segments) expect(s.chars).toBe(text(s.id)!.length);
    expect(systemText(run.providerRequests[0])).toBe(all.join('\n\n'));
  }, 60_000);

  it('plan: read-only, and its execution rules name none of the tools that change the workspace', async () => {
    const tools = catalogFor(agentRole('plan')!, ALL, undefined, false);
    const run = await h.runSession({
      workspace: workspace(),
      prompt: 'plan it',
      agent: 'plan',
      tools,
      script: { replies: [{ text: 'the plan' }] },
    });
    const { r, text } = await firstPrompt(run.sessionId);
    expect(ids(r).filter((i) => i !== 'system.family')).toEqual([
      'system.base',
      'system.agent',
      'runtime.read_only',
      'runtime.execution',
      'runtime.environment',
    ]);
    expect(source(r, 'system.agent')).toBe('prompts/roles/plan.md');
    expect(source(r, 'runtime.read_only')).toBe('prompts/read-only.md');
    // Its catalog, without what only MCP or a search backend brings (`tool_search`, `web_search`).
    expect(r.tools).toEqual(tools.filter((t) => t !== 'tool_search' && t !== 'web_search'));
    expectNamesOnlyOffered(text('runtime.execution')!, r.tools);
    expect(text('runtime.environment')).not.toContain('Programs on PATH');
    expect(text('runtime.environment')).toContain('- Web access from tools: public addresses only');
  }, 60_000);

  it('a build role without shell gets no shell guidance (RT8: generated from the final tool snapshot)', async () => {
    const tools = catalogFor(agentRole('build')!, ALL, undefined, false).filter((t) => t !== 'shell');
    const run = await h.runSession({
      workspace: workspace(),
      prompt: 'hello',
      tools,
      script: { replies: [{ text: 'hi' }] },
    });
    const { r, text } = await firstPrompt(run.sessionId);
    expect(r.tools).not.toContain('shell');
    const execution = text('runtime.execution')!;
    expect(execution).not.toContain('`shell`');
    expect(execution).not.toMatch(/`(rg|gh)`/); // the shell rule's programs went with it
    expect(source(r, 'runtime.execution')).not.toMatch(/shell/);
    expectNamesOnlyOffered(execution, r.tools);
  }, 60_000);

  it('a Goal: Goal mode and the Goal after the per-turn segments, with the Goal as its source', async () => {
    const g = await h.startScriptedGoal({
      workspace: workspace(),
      prompt: 'Keep the build green',
      script: {
        replies: [
          {
            toolCalls: [{ id: 'call_done', name: 'goal_update', arguments: { expected_revision: 1, complete: true } }],
          },
          { text: 'Done.' },
        ],
      },
    });
    try {
      expect((await g.result()).state.status).toBe('completed');
    } finally {
      await g.closeProvider();
    }
    const { r, text } = await firstPrompt(g.sessionId);
    const order = ids(r).filter((i) => i !== 'system.family');
    expect(order).toEqual([
      'system.base',
      'system.agent',
      'runtime.execution',
      'runtime.reports',
      'runtime.environment',
      'system.goal',
      'runtime.goal',
    ]);
    expect(source(r, 'system.goal')).toBe('prompts/goal.md');
    expect(source(r, 'runtime.goal')).toBe(`goal ${g.goalId} revision 1`);
    expect(text('runtime.goal')).toContain('Keep the build green');
    expect(r.tools).toContain('goal_update');
    expectNamesOnlyOffered(text('runtime.execution')!, r.tools);
  }, 90_000);

  it('a Council seat: its reviewer role, read-only, and the seat context with the hard deadline and the report format', async () => {
    const ws = gitWorkspace();
    const threads = ['correctness-review', 'security-review', 'tests-review'].map((a) =>
      seatThread(a, 1, [validReport('src/range.js', 3, 'off by one')]),
    );
    const c = await startScriptedCouncil(h.client, h.taskQueue, {
      workspace: ws,
      script: { replies: [], threads: [...threads, synthesisThread('All agree.')] } as never,
    });
    let seats: { childSessionIds: string[]; agent: string }[];
    try {
      seats = (await c.result()).seats;
    } finally {
      await c.closeProvider();
    }
    const seat = seats.find((s) => s.agent === 'security-review')!;
    const { r, text } = await firstPrompt(seat.childSessionIds[0]!);
    expect(ids(r).filter((i) => i !== 'system.family')).toEqual([
      'system.base',
      'system.agent',
      'runtime.read_only',
      'runtime.execution',
      'runtime.environment',
      'runtime.task_context',
    ]);
    expect(source(r, 'system.agent')).toBe('prompts/roles/security-review.md');
    expect(source(r, 'runtime.task_context')).toMatch(/^prompts\/seat\.md for seat \d\/3 of /);
    const context = text('runtime.task_context')!;
    expect(context).toMatch(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z/); // the hard deadline, filled
    expect(context).toContain('"findings"'); // the report format
    expect(context).not.toContain('{{');
    // A reviewer runs no command and reads no web page: the environment states neither (RT8).
    expect(text('runtime.environment')).not.toMatch(/Shell|Sandbox|Web access/);
    expectNamesOnlyOffered(text('runtime.execution')!, r.tools);
  }, 120_000);
});
