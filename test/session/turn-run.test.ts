import { ActivityFailure, ApplicationFailure, RetryState } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { localProvider } from '../../client/zuno-config.js';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import type { CompactInput, CompactResult } from '../../core/compaction/contract.js';
import type { ModelStepInput, ModelStepResult } from '../../core/session/activities.js';
import type { AdmittedInput } from '../../core/session/inbox.js';
import type { SessionMeta } from '../../core/session/meta.js';
import type { ToolActivityResult } from '../../core/session/tool-activity.js';
import type { PlannedToolCall } from '../../core/session/tool-calls.js';
import type { LocalToolsRule } from '../../workflows/generation.js';
import type { Raced } from '../../workflows/turn-control.js';
import type { TurnPorts } from '../../workflows/turn-ports.js';
import { MAX_STEPS_PER_TURN, TurnRun, type TurnFlags, type TurnRunHost } from '../../workflows/turn-run.js';

/**
 * TurnRun's transitions without a Temporal server: the turn is driven
 * through its own port interface (TurnPorts) by in-process async fakes that
 * log every command in the order the turn issues it.
 */

const meta: SessionMeta = {
  sessionId: 'ses_t',
  workspace: '/ws',
  provider: localProvider('http://127.0.0.1:9'),
  model: 'scripted',
  title: 't',
  toolConcurrency: 8,
  activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
};

const input = (id: string, admission: AdmittedInput['admission'] = 'driven'): AdmittedInput => ({
  inputId: id,
  text: id,
  admission,
  admittedAtMs: 0,
});

let seq = 0;
const call = (name: string, args: Record<string, unknown>): PlannedToolCall => {
  const n = seq++;
  return { rowId: `tc_0_0_${n}`, position: n, index: n, callId: `c${n}`, name, args, summary: `${name} ${n}` };
};
const read = (path = 'a.txt') => call('read', { path });
const write = (path = 'b.txt') => call('write', { path, content: 'x' });
const answer = (textLength = 5): ModelStepResult => ({ finishReason: 'stop', toolCalls: [], textLength });
const calls = (...toolCalls: PlannedToolCall[]): ModelStepResult => ({
  finishReason: 'tool_calls',
  toolCalls,
  textLength: 0,
});
const ok: ToolActivityResult = { outcome: 'ok', outputBytes: 1 };
const overThreshold: ModelStepResult = {
  ...answer(0),
  compactionRequired: { usedTokens: 14_000, limitTokens: 12_000, estimator: 'test' },
};
const contextLimit = () =>
  ApplicationFailure.create({
    message: 'prompt is too long',
    type: 'provider_context_limit',
    nonRetryable: true,
    details: [{ used: 210_000, limit: 200_000 }],
  });
const compacted = (i: CompactInput): CompactResult => ({
  compactionId: i.compactionId,
  boundary: { turn: 0, step: 0 },
  beforeTokens: 14_000,
  afterTokens: 3_000,
  summaryHash: 'abc',
  estimator: 'test',
  alreadyPublished: false,
  usage: { inputTokens: 100, outputTokens: 20 },
});

/** One model step's script: its result, a failure, or a function run when the step is scheduled. */
type StepScript = ModelStepResult | Error | ((i: ModelStepInput) => ModelStepResult | Error);

interface Rig {
  host: TurnRunHost & { stopped: number };
  ctl: TurnFlags;
  log: string[];
  steps: ModelStepInput[];
  run(first?: AdmittedInput[], resumed?: string[]): ReturnType<TurnRun['run']>;
}

function rig(
  script: StepScript[],
  o: {
    fastTurn?: boolean;
    localReads?: LocalToolsRule;
    tool?: (activity: string) => Promise<ToolActivityResult>;
    gate?: (c: PlannedToolCall) => ReturnType<TurnPorts['decideCall']>;
    race?: <T>(running: Promise<T>) => Promise<Raced<T>> | undefined;
    compaction?: boolean;
    compact?: (i: CompactInput) => Promise<CompactResult>;
  } = {},
): Rig {
  const log: string[] = [];
  const steps: ModelStepInput[] = [];
  const host: Rig['host'] = {
    meta,
    inbox: [],
    generation: {
      stateMachine: true,
      fastTurn: o.fastTurn ?? true,
      localReads: o.localReads ?? 'v2',
      compaction: o.compaction ?? true,
    },
    settled: [],
    step: 0,
    activity: 'idle',
    stopped: 0,
    stopSteering() {
      this.stopped += 1;
    },
    background: {
      cancel: (id) => void log.push(`bg cancel ${id}`),
      waitFor: async (id) => void log.push(`bg wait ${id}`),
      start: (c, id) => void log.push(`bg start ${id} ${c.callId}`),
      observedTerminal: (id) => void log.push(`bg terminal ${id}`),
    },
  };
  const ctl: TurnFlags = { interruptedAtMs: null, forceAfterMs: 5000, over: false };
  const ports: TurnPorts = {
    inScope: (s) => s(),
    race: (running) =>
      o.race?.(running) ??
      running.then(
        (value) => ({ kind: 'done', value }),
        (error: unknown) => ({ kind: 'failed', error }),
      ),
    details: (line) => void log.push(`details ${line.split(' ')[0]}`),
    modelStep: async (i) => {
      steps.push(structuredClone(i));
      log.push(`modelStep ${i.step}`);
      const next = script.shift();
      if (next === undefined) throw new Error('script ran out');
      const r = typeof next === 'function' ? next(i) : next;
      if (r instanceof Error) throw r;
      return r;
    },
    decideCall: (c) => (o.gate ? o.gate(c) : { run: true }),
    admitCall: async (c) => {
      log.push(`ask ${c.callId}`);
      return o.gate?.(c) ?? { run: true };
    },
    delegate: async (kind, c) => {
      log.push(`delegate ${kind} ${c.callId}`);
      return { kind: 'done', value: ok };
    },
    toolActivity: (activity) => {
      log.push(`activity ${activity}`);
      return o.tool ? o.tool(activity) : Promise.resolve(ok);
    },
    localFirst: async (activity) => {
      log.push(`local ${activity}`);
      return ok;
    },
    tryLocal: async (tool) => {
      log.push(`try local ${tool}`);
      return { kind: 'done', value: ok };
    },
    compactSession: (i) => {
      log.push(`compact ${i.trigger} ${i.recovery} at ${i.at.step}`);
      return o.compact ? o.compact(i) : Promise.resolve(compacted(i));
    },
    uid: () => `u${log.length}`,
    taskQueue: () => 'q',
  };
  return {
    host,
    ctl,
    log,
    steps,
    run: (first = [input('in_0')], resumed = []) => new TurnRun(host, ctl, ports, { turn: 3, first, resumed }).run(),
  };
}

describe('TurnRun (SE1, TD5, TD10) without a server', () => {
  it('ends with a final answer on a step with no tool call', async () => {
    const r = rig([answer(7)]);
    const result = await r.run();
    expect(result.outcome).toEqual({ turn: 3, steps: 1, inputIds: ['in_0'], kind: 'final_answer', textLength: 7 });
    expect(result.finish).toEqual({ status: 'completed', step: 0, inputIds: ['in_0'] });
    expect(result.spent.usage).toEqual({ tokens: 0, unmeasured: 1 });
    expect(r.host.stopped).toBeGreaterThan(0);
    expect(r.ctl.over).toBe(true);
    expect(r.steps[0]!.newInputs.map((i) => i.inputId)).toEqual(['in_0']);
  });

  it('a call whose result asks to pause (issue 33) ends the turn paused: later batches not run, no further step', async () => {
    const pause = { reason: 'workspace_unavailable' as const, message: 'the workspace /ws does not exist on host h' };
    const blocked: ToolActivityResult = {
      outcome: 'blocked',
      outputBytes: 1,
      errorCode: 'workspace_unavailable',
      pause,
    };
    const w = write();
    const r = rig([calls(read(), read('b'), w), answer()], {
      localReads: 'none',
      tool: async (a) => (a === 'tool_read' ? blocked : ok),
    });
    const result = await r.run();
    expect(r.log.filter((l) => !l.startsWith('details'))).toEqual([
      'modelStep 0',
      'activity tool_read',
      'activity tool_read',
    ]);
    expect(result.outcome).toEqual({ turn: 3, steps: 1, inputIds: ['in_0'], kind: 'paused', ...pause });
    expect(result.finish).toMatchObject({
      status: 'paused',
      error: { code: 'workspace_unavailable', message: pause.message },
      settled: [expect.objectContaining({ callId: w.callId, outcome: 'error', cause: 'not_run' })],
    });
    // A result with the same code and no `pause` (as tools returned before issue 33) is an ordinary error.
    const old = rig([calls(read()), answer()], {
      localReads: 'none',
      tool: async () => ({ outcome: 'error', outputBytes: 1, errorCode: 'workspace_unavailable' }),
    });
    expect((await old.run()).outcome).toMatchObject({ kind: 'final_answer', steps: 2 });
  });

  it('dispatches a ParallelSafe batch together and an Exclusive call alone, in model order', async () => {
    const r = rig([calls(read(), read('b'), write()), answer()], { localReads: 'none' });
    const result = await r.run();
    expect(r.log.filter((l) => !l.startsWith('details'))).toEqual([
      'modelStep 0',
      'activity tool_read',
      'activity tool_read',
      'activity tool_write',
      'modelStep 1',
    ]);
    expect(result.spent).toMatchObject({ toolCalls: 3, changes: 1, uncertain: [] });
    expect(result.outcome).toMatchObject({ kind: 'final_answer', steps: 2 });
    expect(r.host.activity).toBe('model');
  });

  it('runs short reads locally by generation: local-first (fast turn), an awaited attempt (older), none', async () => {
    const fast = rig([calls(read()), answer()]);
    await fast.run();
    expect(fast.log).toContain('local tool_read');
    const rd = read();
    const older = rig([calls(rd), answer()], { fastTurn: false, localReads: 'v1' });
    await older.run();
    expect(older.log).toContain('try local read');
    // An older turn asks the gate through the awaited path; a fast one decides without awaiting.
    expect(older.log).toContain(`ask ${rd.callId}`);
    expect(fast.log.some((l) => l.startsWith('ask'))).toBe(false);
    // v2 runs a read locally only when its whole batch runs at once.
    const narrow = rig([calls(read(), read('b'), read('c')), answer()]);
    Object.assign(narrow.host, { meta: { ...meta, toolConcurrency: 2 } });
    await narrow.run();
    expect(narrow.log.filter((l) => l.startsWith('local'))).toEqual([]);
  });

  it('takes inputs steered during a step into the next step, and before ending (SE1)', async () => {
    const steer = (id: string) => () => {
      r.host.inbox.push(input(id, 'steered'));
      return id === 'in_1' ? calls(read()) : answer();
    };
    const r: Rig = rig([steer('in_1'), steer('in_2'), answer()]);
    const result = await r.run();
    expect(r.steps.map((s) => s.newInputs.map((i) => i.inputId))).toEqual([['in_0'], ['in_1'], ['in_2']]);
    expect(result.outcome).toMatchObject({ kind: 'final_answer', steps: 3, inputIds: ['in_0', 'in_1', 'in_2'] });
  });

  it('a model step cut by an interrupt ends the turn interrupted and rolls the step back', async () => {
    const r: Rig = rig([
      () => {
        r.ctl.interruptedAtMs = 1;
        r.ctl.interruptSource = 'cli:ctrl-c';
        return new Error('cancelled');
      },
    ]);
    const result = await r.run([input('in_0')], ['in_p']);
    expect(result.outcome).toEqual({
      turn: 3,
      steps: 1,
      inputIds: ['in_p', 'in_0'],
      kind: 'interrupted',
      source: 'cli:ctrl-c',
    });
    expect(result.finish).toMatchObject({ status: 'interrupted', rollbackStep: true });
    expect(result.finish.stepInputs?.map((i) => i.inputId)).toEqual(['in_0']);
  });

  it('an interrupt during the model step settles its calls not run and requeues steered inputs as pending', async () => {
    const r: Rig = rig([
      () => {
        r.ctl.interruptedAtMs = 1;
        r.host.inbox.push(input('in_1', 'steered'));
        return calls(read(), write());
      },
    ]);
    const result = await r.run();
    expect(r.log.filter((l) => l.startsWith('activity') || l.startsWith('local'))).toEqual([]);
    expect(result.finish.settled?.map((s) => s.cause)).toEqual(['not_run', 'not_run']);
    expect(result.outcome).toMatchObject({ kind: 'interrupted' });
    // The steered input was never sent: it goes back to the inbox, pending.
    expect(r.host.inbox).toEqual([input('in_1', 'pending')]);
  });

  it('a failed model step ends the turn with its typed failure', async () => {
    const r = rig([ApplicationFailure.nonRetryable('no key', 'provider_auth')]);
    const result = await r.run();
    expect(result.outcome.kind).not.toBe('final_answer');
    expect(result.finish.error?.code).toBe('provider_auth');
  });

  it('settles a lost replay-Never call uncertain and counts it; a denied call schedules nothing', async () => {
    const lost = new ActivityFailure(
      'activity failed',
      'tool_write',
      '1',
      RetryState.MAXIMUM_ATTEMPTS_REACHED,
      'w',
      ApplicationFailure.create({ message: 'gone', type: 'Crash' }),
    );
    const w = write();
    const denied = read('secret');
    const r = rig([calls(denied, w), answer()], {
      tool: async () => Promise.reject(lost),
      gate: (c) =>
        c === denied
          ? {
              run: false,
              settled: {
                rowId: c.rowId,
                callId: c.callId,
                tool: c.name,
                outcome: 'blocked',
                category: 'denied',
              } as never,
            }
          : { run: true },
    });
    const result = await r.run();
    expect(r.log.filter((l) => l.startsWith('activity') || l.startsWith('local'))).toEqual(['activity tool_write']);
    expect(result.spent.uncertain).toEqual([{ callId: w.callId, tool: 'write', cause: 'lost_outcome' }]);
    // Both settlements went to the next model step, which persists them.
    expect(r.steps[1]!.settled.map((s) => s.callId)).toEqual([denied.callId, w.callId]);
  });

  it('a call the force deadline abandoned is settled uncertain (interrupted)', async () => {
    const r: Rig = rig([calls(write())], {
      race: <T>(_running: Promise<T>) => {
        if (r.log.some((l) => l === 'activity tool_write')) {
          r.ctl.interruptedAtMs = 1;
          return Promise.resolve<Raced<T>>({ kind: 'forced' });
        }
        return undefined;
      },
    });
    const result = await r.run();
    expect(result.finish.settled).toMatchObject([{ outcome: 'uncertain', cause: 'interrupted' }]);
    expect(result.spent.uncertain).toMatchObject([{ cause: 'interrupted' }]);
    expect(result.outcome.kind).toBe('interrupted');
  });

  it(`ends as runaway after ${MAX_STEPS_PER_TURN} steps`, async () => {
    const r = rig(Array.from({ length: MAX_STEPS_PER_TURN }, (_, i) => calls(read(`f${i}`))));
    const result = await r.run();
    expect(result.outcome).toMatchObject({ kind: 'limit', limit: 'turn_step_limit', steps: MAX_STEPS_PER_TURN });
    expect(result.finish.status).toBe('failed');
  });

  describe('compaction (CP6, CP8)', () => {
    it('a step over the threshold compacts, then runs again carrying the same inputs; the turn does not fail', async () => {
      const r = rig([overThreshold, answer(4)]);
      const result = await r.run();
      expect(r.log.filter((l) => !l.startsWith('details'))).toEqual([
        'modelStep 0',
        'compact threshold 1 at 0',
        'modelStep 0',
      ]);
      expect(r.steps.map((s) => s.newInputs.map((i) => i.inputId))).toEqual([['in_0'], ['in_0']]);
      expect(result.outcome).toEqual({ turn: 3, steps: 1, inputIds: ['in_0'], kind: 'final_answer', textLength: 4 });
      expect(r.log).toContain('details turn');
      // The summary request counts toward the turn's spending (GL10); the step that sent nothing does not.
      expect(result.spent.usage).toEqual({ tokens: 120, unmeasured: 1 });
    });

    it("a provider's context-limit error takes the same recovery and keeps the provider's figures", async () => {
      const seen: CompactInput[] = [];
      const r = rig([contextLimit(), answer()], { compact: async (i) => (seen.push(i), compacted(i)) });
      const result = await r.run();
      expect(result.outcome.kind).toBe('final_answer');
      expect(seen).toMatchObject([
        { trigger: 'context_limit', recovery: 1, usedTokens: 210_000, limitTokens: 200_000 },
      ]);
      expect(seen[0]!.compactionId).toMatch(/^cmp_3_0_/);
    });

    it('a 6th recovery in one turn fails typed compaction_limit and schedules nothing more', async () => {
      const r = rig([overThreshold, contextLimit(), overThreshold, overThreshold, contextLimit(), overThreshold]);
      const result = await r.run();
      expect(r.log.filter((l) => l.startsWith('compact'))).toHaveLength(5);
      expect(r.log.filter((l) => l.startsWith('modelStep'))).toHaveLength(6);
      expect(result.outcome).toMatchObject({ kind: 'failed', code: 'compaction_limit', steps: 0 });
      expect(result.finish).toMatchObject({ status: 'failed', error: { code: 'compaction_limit' } });
    });

    it('a compaction that fails for good ends the turn with its typed code, not retryable for a Goal', async () => {
      const r = rig([overThreshold], {
        compact: () => Promise.reject(ApplicationFailure.nonRetryable('empty summary', 'compaction_failed')),
      });
      const result = await r.run();
      expect(result.outcome).toMatchObject({ kind: 'failed', code: 'compaction_failed' });
      expect(result.outcome).not.toHaveProperty('retryable');
    });

    it('an older generation treats a context-limit error as the failure it was', async () => {
      const r = rig([contextLimit()], { compaction: false });
      const result = await r.run();
      expect(r.log.some((l) => l.startsWith('compact'))).toBe(false);
      expect(result.outcome).toMatchObject({ kind: 'failed', code: 'provider_context_limit' });
    });
  });
});
