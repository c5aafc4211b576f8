/**
 * The Goal's audit trail kept in its projection row (issue 26 item 7):
 * `recordGoal` appends what the workflow hands over, never twice, the
 * newest 200 kept; `--check` on the command line belongs to the criterion
 * right before it. Real projection store (SQLite), real commander parse.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRecordGoal } from '../../activities/goal/record-goal.js';
import { openProjectionStore } from '../../activities/projection/open.js';
import type { ProjectionStore } from '../../activities/projection/types.js';
import { buildProgram } from '../../client/cli.js';
import { goalStartInput, type GoalCheckFlag } from '../../client/goal-input.js';
import { ZunoError } from '../../core/errors.js';
import { MAX_TRANSITIONS_KEPT, type GoalSnapshot } from '../../core/goal/contract.js';
import { transitionOf } from '../../core/goal/transitions.js';

let dir: string;
let store: ProjectionStore;
beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'zuno-goal-trail-'));
  store = await openProjectionStore({ zunoDir: dir });
});
afterAll(async () => {
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

const T0 = Date.UTC(2026, 0, 1);
function snap(revision: number, patch: Partial<GoalSnapshot> = {}): GoalSnapshot {
  return {
    goalId: 'goal_trail',
    sessionId: 'ses_trail',
    objective: 'keep a trail',
    revision,
    state:
      revision % 2 === 0
        ? { status: 'paused', reason: 'user_interrupt', message: 'paused by you' }
        : { status: 'active' },
    budgets: { toolCalls: 5 },
    spent: { tokens: revision, unmeasuredRequests: 0, toolCalls: 0, turns: 0 },
    criteria: [],
    progress: { fingerprint: null, repeats: 0 },
    createdAtMs: T0,
    updatedAtMs: T0 + revision,
    ...patch,
  };
}

describe('recordGoal keeps the audit trail', () => {
  it('appends the transitions handed over, not twice on a retried record, and keeps the newest 200', async () => {
    const record = createRecordGoal(store);
    const now = Date.now();
    await store.upsertSession({
      id: 'ses_trail',
      workflowId: 'session/ses_trail',
      workspace: dir,
      status: 'running',
      provider: 'p',
      model: 'm',
      createdAtMs: now,
      updatedAtMs: now,
    });
    const t1 = transitionOf(null, snap(1), 'zuno goal start');
    await record({ snapshot: snap(1), transitions: [t1] });
    await record({ snapshot: snap(1), transitions: [t1] }); // the same record again (a retried activity)
    expect((await store.getGoal('goal_trail'))!.snapshot.transitions).toEqual([t1]);
    // A record without transitions (spending only) keeps the trail.
    await record({ snapshot: snap(1, { spent: { tokens: 9, unmeasuredRequests: 0, toolCalls: 1, turns: 1 } }) });
    expect((await store.getGoal('goal_trail'))!.snapshot.transitions).toEqual([t1]);
    for (let r = 2; r <= MAX_TRANSITIONS_KEPT + 10; r++) {
      const t = transitionOf(snap(r - 1).state, snap(r), r % 2 === 0 ? 'you: goal pause' : 'you: goal resume');
      await record({ snapshot: snap(r), transitions: [t] });
    }
    const kept = (await store.getGoal('goal_trail'))!.snapshot.transitions!;
    expect(kept).toHaveLength(MAX_TRANSITIONS_KEPT);
    expect(kept[0]!.revision).toBe(11);
    expect(kept.at(-1)).toMatchObject({
      revision: MAX_TRANSITIONS_KEPT + 10,
      from: 'active',
      to: 'paused',
      reason: 'user_interrupt',
      message: 'paused by you',
      by: 'you: goal pause',
      budgets: { toolCalls: 5 },
    });
  });
});

describe('--check belongs to the criterion right before it', () => {
  /** The options `zuno goal start` would get for `argv`, parsed by the real command line (nothing is started). */
  async function parsed(argv: string[]): Promise<Record<string, unknown>> {
    const program = buildProgram(() => undefined);
    const start = program.commands.find((c) => c.name() === 'goal')!.commands.find((c) => c.name() === 'start')!;
    let got: Record<string, unknown> = {};
    start.action((_objective: string, opts: Record<string, unknown>) => {
      got = opts;
    });
    await program.parseAsync(['node', 'zuno', 'goal', 'start', 'Make CI green', ...argv]);
    return got;
  }

  it('attaches each check to its criterion, in either list; the criterion then needs evidence', async () => {
    const opts = await parsed([
      '--criterion',
      'the changelog names the fix',
      '--evidence-criterion',
      'CI is green',
      '--check',
      '  bash ci.sh ',
      '--criterion',
      'lint is clean',
      '--check',
      'npm run lint',
    ]);
    const input = goalStartInput('Make CI green', opts as never);
    expect(input.criteria).toEqual([
      { text: 'the changelog names the fix', needsEvidence: false },
      { text: 'lint is clean', needsEvidence: true, check: 'npm run lint' },
      { text: 'CI is green', needsEvidence: true, check: 'bash ci.sh' },
    ]);
    // A second parse in the same process starts afresh: a leading --check names no criterion.
    const again = await parsed(['--check', 'bash ci.sh', '--criterion', 'CI is green']);
    expect((again.check as GoalCheckFlag[])[0]!.of).toBeNull();
  });

  it('refuses a --check with no criterion before it, and a second check of one criterion, as usage errors', () => {
    const refused = (check: GoalCheckFlag[], criterion: string[] = []) => {
      try {
        goalStartInput('Make CI green', { criterion, check });
      } catch (err) {
        return err as ZunoError;
      }
      throw new Error('expected a refusal');
    };
    const none = refused([{ command: 'bash ci.sh', of: null }]);
    expect(none).toBeInstanceOf(ZunoError);
    expect(none.code).toBe('usage_error');
    expect(none.message).toContain('--check "bash ci.sh" names no criterion: put it right after the --criterion');
    const twice = refused(
      [
        { command: 'bash ci.sh', of: { kind: 'criterion', index: 0 } },
        { command: 'make ci', of: { kind: 'criterion', index: 0 } },
      ],
      ['CI is green'],
    );
    expect(twice.code).toBe('usage_error');
    expect(twice.message).toContain('second check of one criterion');
    const empty = refused([{ command: '  ', of: { kind: 'criterion', index: 0 } }], ['CI is green']);
    expect(empty.code).toBe('input_invalid');
    expect(empty.message).toContain('--check of criterion cr_1 is empty');
  });
});
