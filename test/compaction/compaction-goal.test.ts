import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { COMPACTION_DEFAULTS } from '../../core/compaction/contract.js';
import { EV } from '../../core/events.js';
import type { ScriptReply } from '../../local-provider/script.js';
import { createHarness, type Harness } from '../helpers/harness.js';

/**
 * Compaction inside a Goal (issue 28; CP10, CP13): a real Temporal server,
 * the real SQLite projection, the scripted provider over HTTP. Two
 * compactions, each recovering from a scripted context-limit error (CP8),
 * happen while the Goal's turn works on its Plan and Todo list. The summary
 * requests carry the Goal and the work state read from the store, the first
 * request after each compaction carries them again (never a copy from the
 * summarized conversation), and the second summary request inherits the first
 * summary.
 */
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => {
  await h?.close();
});

const OBJECTIVE = 'Digest the retry notes into a plan of changes';
const SUMMARY_ONE = 'SUMMARY-ONE: the Plan has two steps; f0 was read; f1 is next.';
const SUMMARY_TWO = 'SUMMARY-TWO: f0 and f1 were read, td_1 is completed; f2 is next, then complete the goal.';

/** A workspace with `n` files of about 3 000 characters each (`f0.txt` …). */
function workspace(n = 3): string {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-compact-goal-ws-'));
  for (let i = 0; i < n; i++) {
    const lines = Array.from({ length: 60 }, (_, l) => `file ${i} line ${l}: notes about the retry policy`);
    writeFileSync(join(dir, `f${i}.txt`), `${lines.join('\n')}\n`);
  }
  return dir;
}

const call = (name: string, args: Record<string, unknown>): ScriptReply => ({
  toolCalls: [{ name, arguments: args }],
});
const read = (i: number): ScriptReply => call('read', { path: `f${i}.txt` });
const limited = (r: ScriptReply): ScriptReply => ({ ...r, fault: { contextLimit: true } });

type Body = { messages: { role: string; content: unknown }[] };
const text = (c: unknown) => (typeof c === 'string' ? c : JSON.stringify(c));
const systemText = (b: Body) =>
  b.messages
    .filter((m) => m.role === 'system')
    .map((m) => text(m.content))
    .join('\n');
const userText = (b: Body) =>
  b.messages
    .filter((m) => m.role === 'user')
    .map((m) => text(m.content))
    .join('\n');
const isCompaction = (b: Body) =>
  b.messages.some((m) => m.role === 'user' && text(m.content).startsWith('Compaction request'));

it('compaction inside a Goal keeps the Goal, Plan and Todo: the first request after it carries the re-read work state (CP10), the previous summary feeds the next compaction (CP13)', async () => {
  const g = await h.startScriptedGoal({
    workspace: workspace(),
    prompt: OBJECTIVE,
    tools: ['read', 'plan_update', 'todo_update', 'goal_update'],
    script: {
      replies: [
        call('plan_update', { action: 'create', steps: [{ title: 'Read the notes' }, { title: 'Write the plan' }] }),
        call('todo_update', {
          expected_revision: 0,
          changes: [
            { op: 'add', title: 'Read f0 and f1', step: 'st_1' },
            { op: 'add', title: 'Read f2', step: 'st_1' },
          ],
        }),
        read(0),
        limited(read(1)),
        call('todo_update', { expected_revision: 1, changes: [{ op: 'set', id: 'td_1', status: 'completed' }] }),
        limited(read(2)),
        call('goal_update', { expected_revision: 1, complete: true }),
        { text: 'The goal is complete.' },
      ],
      threads: [{ match: 'Compaction request', replies: [{ text: SUMMARY_ONE }, { text: SUMMARY_TWO }] }],
    },
  });
  let completed = false;
  try {
    const final = await g.result();
    completed = true;
    expect(final.state.status).toBe('completed');
    const session = await g.sessionResult();
    expect(session.status).toBe('completed');

    const published = await h.store.eventsOfType(g.sessionId, EV.compactionSummary);
    expect(published.map((e) => (e.data as { summary: string }).summary)).toEqual([SUMMARY_ONE, SUMMARY_TWO]);
    const all = g.providerRequests as Body[];
    const at = all.flatMap((b, i) => (isCompaction(b) ? [i] : []));
    expect(at).toHaveLength(2);

    // The summary requests carry the Goal and the current Plan/Todo state, read from the store.
    const [c1, c2] = at.map((i) => userText(all[i]!));
    for (const c of [c1!, c2!]) {
      expect(c).toContain('Current Goal (from the store, authoritative):');
      expect(c).toContain(`# Goal ${g.goalId}`);
      expect(c).toContain(OBJECTIVE);
      expect(c).toContain('Current work state (from the store, authoritative):');
      expect(c).toContain('- st_1 [pending] Read the notes');
      expect(c).toContain('- st_2 [pending] Write the plan');
    }
    expect(c1).toContain('## Todos (revision 1)');
    expect(c1).toContain('- td_1 [pending] Read f0 and f1');
    expect(c2).toContain('## Todos (revision 2)');
    expect(c2).toContain('- td_1 [completed] Read f0 and f1');
    // CP13: the first compaction had nothing to inherit; the second inherits SUMMARY-ONE.
    expect(systemText(all[at[0]!]!)).not.toContain('<previous_summary>');
    expect(systemText(all[at[1]!]!)).toContain(`<previous_summary>\n${SUMMARY_ONE}\n</previous_summary>`);

    // The first main request after each compaction: Goal segment, work-state segment (as committed now), summary.
    const [m1, m2] = at.map((i) => all[i + 1]!);
    for (const [m, summary] of [
      [m1!, SUMMARY_ONE],
      [m2!, SUMMARY_TWO],
    ] as const) {
      expect(isCompaction(m)).toBe(false);
      const system = systemText(m);
      expect(system).toContain(`# Goal ${g.goalId}`);
      expect(system).toContain(OBJECTIVE);
      expect(system).toContain('# Work state (runtime.work_state)');
      expect(system).toContain('- st_1 [pending] Read the notes');
      expect(system).toContain(`<summary>\n${summary}\n</summary>`);
      expect(system).toMatch(/This summary replaces \d+ earlier model steps and \d+ earlier user messages/);
      // CP10: the anchor is the objective as the person gave it; no user message carries a summary.
      const users = m.messages.filter((x) => x.role === 'user').map((x) => text(x.content));
      expect(users[0]).toContain(OBJECTIVE);
      expect(users.some((u) => u.includes('SUMMARY-'))).toBe(false);
    }
    expect(systemText(m1!)).toContain('- td_1 [pending] Read f0 and f1');
    expect(systemText(m2!)).toContain('## Todos (revision 2)');
    expect(systemText(m2!)).toContain('- td_1 [completed] Read f0 and f1');
    expect(systemText(m2!)).not.toContain(SUMMARY_ONE);
    // The work state came from the store, not from the conversation: step 0.4's todo_update is summarized away.
    const verbatim = m2!.messages.filter((x) => x.role !== 'system').map((x) => text(x.content));
    expect(verbatim.join('\n')).not.toContain('td_1');

    // The scripted replies kept their order through both compactions.
    const t = (await h.store.loadTranscript(g.sessionId))!;
    expect(t.toolCalls.map((c) => c.tool)).toEqual([
      'plan_update',
      'todo_update',
      'read',
      'read',
      'todo_update',
      'read',
      'goal_update',
    ]);
    expect(t.toolCalls.every((c) => c.outcome === 'ok')).toBe(true);
  } finally {
    if (!completed) {
      await g.goal.executeUpdate('goalControl', { args: [{ commandId: 'cancel', action: 'cancel' }] }).catch(() => {});
      await g.result().catch(() => {});
    }
    await g.closeProvider();
  }
}, 240_000);

it("a compaction in a Goal's continuation turn keeps the continuation directive and summarizes the earlier turn", async () => {
  const g = await h.startScriptedGoal({
    workspace: workspace(),
    prompt: OBJECTIVE,
    tools: ['read', 'plan_update', 'todo_update', 'goal_update'],
    script: {
      replies: [
        // Turn 0 (the objective): a Plan and a read, then the turn ends; the Goal continues.
        call('plan_update', { action: 'create', steps: [{ title: 'Read the notes' }, { title: 'Write the plan' }] }),
        read(0),
        { text: 'First pass done.' },
        // Turn 1 (a continuation, no user message): the first request of the turn hits the context limit.
        limited(call('todo_update', { expected_revision: 0, changes: [{ op: 'add', title: 'Read f1' }] })),
        read(1),
        call('goal_update', { expected_revision: 1, complete: true }),
        { text: 'The goal is complete.' },
      ],
      threads: [{ match: 'Compaction request', replies: [{ text: SUMMARY_ONE }] }],
    },
  });
  let completed = false;
  try {
    const final = await g.result();
    completed = true;
    expect(final.state.status).toBe('completed');
    expect((await g.sessionResult()).status).toBe('completed');
    const markers = await h.store.eventsOfType(g.sessionId, EV.contextCompact);
    expect(markers.map((e) => [(e.data as { turn: number }).turn, (e.data as { step: number }).step])).toEqual([
      [1, 0],
    ]);
    const all = g.providerRequests as Body[];
    const at = all.findIndex(isCompaction);
    expect(at).toBeGreaterThan(0);
    // The summary request covered turn 0 and carried the Goal and the Plan from the store.
    const request = userText(all[at]!);
    expect(request).toContain(`# Goal ${g.goalId}`);
    expect(request).toContain('- st_1 [pending] Read the notes');
    expect(request).toContain('## step 0.0');
    expect(request).toContain('## step 0.2');
    // The request that hit the limit and the one sent again after the compaction are both continuations.
    const before = systemText(all[at - 1]!);
    const after = all[at + 1]!;
    expect(before).toContain('automatic continuation of the goal');
    expect(systemText(after)).toContain('automatic continuation of the goal');
    expect(systemText(after)).toContain(`# Goal ${g.goalId}`);
    expect(systemText(after)).toContain('# Work state (runtime.work_state)');
    expect(systemText(after)).toContain(`<summary>\n${SUMMARY_ONE}\n</summary>`);
    // CP10: the only user message is the objective, kept verbatim; no user message was synthesized.
    expect(after.messages.filter((m) => m.role === 'user').map((m) => text(m.content))).toEqual([OBJECTIVE]);
    const t = (await h.store.loadTranscript(g.sessionId))!;
    expect(t.toolCalls.map((c) => c.tool)).toEqual(['plan_update', 'read', 'todo_update', 'read', 'goal_update']);
  } finally {
    if (!completed) {
      await g.goal.executeUpdate('goalControl', { args: [{ commandId: 'cancel', action: 'cancel' }] }).catch(() => {});
      await g.result().catch(() => {});
    }
    await g.closeProvider();
  }
}, 240_000);

/**
 * The reported input of a reply: over the threshold of a 20 000-token window (0.8 × 18 000 usable). The local
 * provider's default usage counts the messages only, not the offered tools' schemas (a real provider counts
 * both), so the Goal's growing transcript alone would not reach a threshold deterministically; a reported figure does.
 */
const big = (r: ScriptReply): ScriptReply => ({ ...r, usage: { inputTokens: 15_000, outputTokens: 10 } });

it('a Goal crossing the threshold of its context window (CP6): each compaction and the request after it carry the Goal and the work state', async () => {
  const summaries = ['GS-1', 'GS-2'];
  const g = await h.startScriptedGoal({
    workspace: workspace(5),
    prompt: OBJECTIVE,
    tools: ['read', 'plan_update', 'todo_update', 'goal_update'],
    context: { windowTokens: 20_000, outputReserveTokens: 2_000, source: 'config' },
    compaction: { ...COMPACTION_DEFAULTS, retainedTokens: 1_000 },
    script: {
      replies: [
        call('plan_update', { action: 'create', steps: [{ title: 'Read the notes' }, { title: 'Write the plan' }] }),
        read(0),
        big(read(1)),
        read(2),
        big(read(3)),
        read(4),
        call('goal_update', { expected_revision: 1, complete: true }),
        { text: 'The goal is complete.' },
      ],
      threads: [{ match: 'Compaction request', replies: summaries.map((s) => ({ text: s })) }],
    },
  });
  let completed = false;
  try {
    const final = await g.result();
    completed = true;
    expect(final.state.status).toBe('completed');
    const markers = await h.store.eventsOfType(g.sessionId, EV.contextCompact);
    expect(markers.map((e) => e.data as { trigger: string; step: number })).toMatchObject([
      { trigger: 'threshold', step: 3 },
      { trigger: 'threshold', step: 5 },
    ]);
    const published = await h.store.eventsOfType(g.sessionId, EV.compactionSummary);
    expect(published.map((e) => (e.data as { summary: string }).summary)).toEqual(summaries);
    const all = g.providerRequests as Body[];
    const at = all.flatMap((b, i) => (isCompaction(b) ? [i] : []));
    expect(at).toHaveLength(2);
    at.forEach((i, k) => {
      expect(userText(all[i]!)).toContain(`# Goal ${g.goalId}`);
      expect(userText(all[i]!)).toContain('- st_1 [pending] Read the notes');
      if (k > 0) expect(systemText(all[i]!)).toContain(`<previous_summary>\n${summaries[k - 1]}\n</previous_summary>`);
      // CP6: nothing was sent for the step over the threshold; the request after the summary is that step's.
      const next = all[i + 1]!;
      expect(isCompaction(next)).toBe(false);
      expect(systemText(next)).toContain(`# Goal ${g.goalId}`);
      expect(systemText(next)).toContain('- st_1 [pending] Read the notes');
      expect(systemText(next)).toContain(`<summary>\n${summaries[k]}\n</summary>`);
    });
    expect(all).toHaveLength(8 + 2);
    const t = (await h.store.loadTranscript(g.sessionId))!;
    expect(t.toolCalls.map((c) => (c.tool === 'read' ? JSON.parse(c.argsJson).path : c.tool))).toEqual([
      'plan_update',
      ...Array.from({ length: 5 }, (_, i) => `f${i}.txt`),
      'goal_update',
    ]);
  } finally {
    if (!completed) {
      await g.goal.executeUpdate('goalControl', { args: [{ commandId: 'cancel', action: 'cancel' }] }).catch(() => {});
      await g.result().catch(() => {});
    }
    await g.closeProvider();
  }
}, 240_000);
