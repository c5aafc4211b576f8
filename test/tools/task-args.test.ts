/**
 * Bad input for the delegation family's declarations (DC1, DC10, DC15,
 * DC23), through the same `validateToolCall` the session workflow's model
 * step uses: what a model sends, what it is told back. Pure: no worker, no
 * database. The JSON example of `task`'s model-facing description is
 * validated as written.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_ROLES, delegableAgents } from '../../core/agents.js';
import { validateToolCall } from '../../core/tools/registry.js';
import { TASK_FIELDS } from '../../core/tools/task.js';
import { ROOT } from '../helpers/dev-server.js';

/** Argument values no note may ever repeat (DC10: hints never copy argument values). */
const VALID = {
  agent: 'explore',
  objective: 'OBJECTIVE_VALUE_7f3a find the config parser',
  deliverable: 'DELIVERABLE_VALUE_9c1e file and line',
  instructions: 'INSTRUCTIONS_VALUE_2b8d read only',
  success_evidence: 'EVIDENCE_VALUE_5e6f file:line references',
};
const VALUE_MARKERS = [
  'OBJECTIVE_VALUE_7f3a',
  'DELIVERABLE_VALUE_9c1e',
  'INSTRUCTIONS_VALUE_2b8d',
  'EVIDENCE_VALUE_5e6f',
];

/** The refusal of `name` with `args`: its message split into the issue list and the notes (DC10). */
function refusal(name: string, args: unknown): { message: string; issues: string[]; notes: string[] } {
  const v = validateToolCall(name, JSON.stringify(args));
  expect(v.ok, JSON.stringify(v)).toBe(false);
  if (v.ok) throw new Error('accepted');
  expect(v.category).toBe('invalid_arguments');
  const lines = v.message.split('\n');
  const notesAt = lines.indexOf('Notes:');
  const end = lines.findIndex((l) => l.startsWith('Fix these arguments'));
  const issues = lines.slice(1, notesAt >= 0 ? notesAt : end);
  const notes = notesAt >= 0 ? lines.slice(notesAt + 1, end).map((l) => l.replace(/^- /, '')) : [];
  return { message: v.message, issues, notes };
}

/** DC10's bounds on notes: at most 4, each at most 256 Unicode characters, no argument value copied. */
function expectBoundedNotes(notes: string[], values: readonly string[] = VALUE_MARKERS): void {
  expect(notes.length).toBeLessThanOrEqual(4);
  for (const n of notes) {
    expect([...n].length).toBeLessThanOrEqual(256);
    for (const v of values) expect(n).not.toContain(v);
  }
}

const without = (field: string): Record<string, unknown> => {
  const { [field]: _gone, ...rest } = VALID as Record<string, unknown>;
  return rest;
};

describe('task: the flat contract (DC1, DC10)', () => {
  it('accepts the five fields, and the JSON example of its description as written', () => {
    expect(validateToolCall('task', JSON.stringify(VALID))).toMatchObject({ ok: true, args: VALID });
    const text = readFileSync(join(ROOT, 'activities/tools/task.txt'), 'utf8');
    const example = text.split('\n').find((l) => l.startsWith('{"agent"'));
    expect(example, 'task.txt has a one-line JSON example').toBeDefined();
    expect(validateToolCall('task', example!)).toMatchObject({ ok: true });
  });

  it('a missing field keeps the original error and adds that field’s note, never auto-filled', () => {
    for (const field of TASK_FIELDS) {
      const r = refusal('task', without(field));
      expect(r.issues).toContain(`- ${field}: ${field} is required`);
      expect(r.notes).toHaveLength(1);
      expect(r.notes[0]!.startsWith(`${field}: `)).toBe(true);
      expectBoundedNotes(r.notes);
    }
  });

  it('every field missing: every original error, at most 4 notes', () => {
    const r = refusal('task', {});
    for (const field of TASK_FIELDS) expect(r.issues).toContain(`- ${field}: ${field} is required`);
    expect(r.notes).toHaveLength(4);
    expectBoundedNotes(r.notes);
  });

  it('an extra field is refused by name, with no note', () => {
    const r = refusal('task', { ...VALID, priority: 'PRIORITY_VALUE_1d2c' });
    expect(r.issues).toEqual(['- (arguments): Unrecognized key: "priority"']);
    expect(r.notes).toEqual([]);
    expect(r.message).not.toContain('PRIORITY_VALUE_1d2c');
  });

  it('the fields nested in a `contract` (or any) object: a note says they are top-level', () => {
    for (const key of ['contract', 'arguments']) {
      const r = refusal('task', { [key]: VALID });
      expect(r.issues).toContain(`- (arguments): Unrecognized key: "${key}"`);
      expect(r.notes[0]).toBe(
        'The contract fields are top-level arguments of task; do not nest them inside another object.',
      );
      expectBoundedNotes(r.notes);
    }
  });

  it('a nested error does not borrow the top-level note of a field with the same name', () => {
    // objective is present at the top level (a wrong type): no "objective: …" hint, only the original error.
    const r = refusal('task', { ...VALID, objective: { objective: 'OBJECTIVE_VALUE_7f3a' } });
    expect(r.issues).toEqual(['- objective: objective must be a string']);
    expect(r.notes).toEqual([]);
  });

  it('`intent` is stripped and accepted; it never stands in for a missing field', () => {
    const ok = validateToolCall('task', JSON.stringify({ ...VALID, intent: 'Looking for the parser' }));
    expect(ok).toMatchObject({ ok: true });
    if (ok.ok) expect(ok.args).toEqual(VALID);
    const r = refusal('task', { ...without('objective'), intent: 'INTENT_VALUE_4a4a find it' });
    expect(r.issues).toEqual(['- objective: objective is required']);
    expectBoundedNotes(r.notes, [...VALUE_MARKERS, 'INTENT_VALUE_4a4a']);
    expect(r.message).not.toContain('INTENT_VALUE_4a4a');
  });

  it('an unknown agent is refused with the roles a task may delegate to, without repeating the value', () => {
    const r = refusal('task', { ...VALID, agent: 'WIZARD_AGENT_VALUE' });
    expect(r.issues).toEqual([`- agent: unknown agent; use one of ${delegableAgents().join(', ')}`]);
    expect(r.message).not.toContain('WIZARD_AGENT_VALUE');
  });

  it('every role of the roster but a primary-only one can be delegated to (the roster has no primary-only role)', () => {
    for (const role of Object.values(AGENT_ROLES)) {
      const v = validateToolCall('task', JSON.stringify({ ...VALID, agent: role.name }));
      if (role.mode === 'primary') {
        expect(v.ok).toBe(false);
        if (!v.ok) expect(v.message).toContain('this role cannot be delegated to');
      } else expect(v, role.name).toMatchObject({ ok: true });
    }
  });

  it('a non-string field and an empty one are refused by name, with no note', () => {
    const n = refusal('task', { ...VALID, deliverable: 42 });
    expect(n.issues).toEqual(['- deliverable: deliverable must be a string']);
    expect(n.notes).toEqual([]);
    const e = refusal('task', { ...VALID, instructions: '   ' });
    expect(e.issues).toEqual(['- instructions: instructions must not be empty']);
    expect(e.notes).toEqual([]);
    const b = refusal('task', { ...VALID, background: 'yes' });
    expect(b.issues).toHaveLength(1);
    expect(b.issues[0]).toMatch(/^- background: /);
  });

  it('a field name over 128 bytes gets no hint and is never truncated', () => {
    const long = `objective_${'é'.repeat(70)}`; // 150 bytes of UTF-8
    const r = refusal('task', { ...without('objective'), [long]: 'OBJECTIVE_VALUE_7f3a' });
    expect(r.issues).toContain(`- (arguments): Unrecognized key: "${long}"`);
    expect(r.notes.some((n) => n.includes(long.slice(0, 20)))).toBe(false);
    expect(r.notes).toHaveLength(1); // the note of the missing top-level objective only
    expectBoundedNotes(r.notes);
  });
});

describe('council_run: the frozen preset (DC23)', () => {
  it('a budget, seat or quorum field is refused with the frozen-preset note', () => {
    const extras: Record<string, unknown>[] = [
      { deadline_ms: 1000 },
      { quorum: 1 },
      { seats: ['a'] },
      { synthesis_ms: 5 },
    ];
    // The same attempt in another spelling gets the same note.
    extras.push({ deadlineMs: 1000 }, { Quorum: 2 }, { 'seat-deadline-ms': 9 });
    for (const extra of extras) {
      const r = refusal('council_run', { question: 'Is this change safe to merge?', ...extra });
      expect(r.issues).toEqual([`- (arguments): Unrecognized key: "${Object.keys(extra)[0]}"`]);
      expect(r.notes).toHaveLength(1);
      expect(r.notes[0]).toMatch(/^The balanced-review preset is frozen: 600000 ms in all/);
    }
  });

  it('another preset, a bad diff range and an unrelated extra field are refused without that note', () => {
    expect(refusal('council_run', { question: 'q', preset: 'fast' }).notes).toEqual([]);
    const diff = refusal('council_run', { question: 'q', diff: '--output=/tmp/x' });
    expect(diff.issues).toEqual(['- diff: diff must be a git range such as HEAD~1..HEAD']);
    expect(refusal('council_run', { question: 'q', color: 'red' }).notes).toEqual([]);
  });
});

describe('job: job ids and actions (DC15)', () => {
  it('a bad job id is refused with the shape task returns', () => {
    for (const id of ['bg_0_0_0', 'job_1_2', 'job_a_b_c', '']) {
      const r = refusal('job', { action: 'status', job_id: id });
      expect(r.issues).toEqual(['- job_id: a job id looks like job_<turn>_<step>_<position>, as task returned it']);
    }
    expect(validateToolCall('job', '{"action":"status","job_id":"job_0_1_2"}')).toMatchObject({ ok: true });
  });

  it('a wait longer than 60 s, a list with a job id and an unknown action are refused', () => {
    expect(refusal('job', { action: 'wait', job_id: 'job_0_0_0', timeout_ms: 120_000 }).issues[0]).toMatch(
      /^- timeout_ms: /,
    );
    expect(refusal('job', { action: 'list', job_id: 'job_0_0_0' }).issues).toEqual([
      '- (arguments): Unrecognized key: "job_id"',
    ]);
    expect(refusal('job', { action: 'restart', job_id: 'job_0_0_0' }).issues[0]).toMatch(/^- action: /);
  });
});
