/**
 * One run of the long Goal of bench/compaction-soak.ts: the Goal started on
 * the bench's worker with its own scripted provider, watched until it ends,
 * stops by itself (paused, blocked, budget-limited: cancelled then, and said
 * so), stalls, or — for the baseline — sends a request over the window
 * (cancelled there). Returns what the figures are made of.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { newGoalId, startGoal } from '../client/goal-start.js';
import { newSessionId } from '../client/session-start.js';
import { localProvider } from '../client/zuno-config.js';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../core/activity-defaults.js';
import type { CompactionSettings, ContextWindow } from '../core/compaction/settings.js';
import { GOAL_CONTROL_UPDATE, GOAL_QUERY, type GoalSnapshot } from '../core/goal/contract.js';
import type { SessionMeta } from '../core/session/meta.js';
import { requestTokens as providerTokens } from '../local-provider/context-limit.js';
import { startLocalProvider } from '../local-provider/server.js';
import { chatSurface } from '../local-provider/surface-chat.js';
import type { Script } from '../local-provider/script.js';
import type { Harness } from '../test/helpers/harness.js';
import {
  SOAK_OBJECTIVE,
  SOAK_TOOLS,
  isCompactionRequest,
  requestTokens,
  turnOfRequest,
} from './compaction-soak-script.js';

/** How one run is set up. */
export interface SoakRunOptions {
  label: string;
  workspace: string;
  script: Script;
  /** The session's context window (absent: unknown, no proactive compaction). */
  context?: ContextWindow;
  compaction: CompactionSettings;
  /** Cancel the Goal at the first main request over this many tokens (the baseline at the window; the compacted run at a runaway size). */
  stopOverTokens: number;
  /** No new provider request for this long (ms) counts as a stall: the Goal is cancelled. */
  stallMs: number;
}

/** One captured model request: its order, whether it was a summary request, its size (requestTokens), its Goal turn (main requests). */
export interface SoakRequest {
  index: number;
  compaction: boolean;
  tokens: number;
  /** The scripted provider's own estimate (⌈chars/4⌉ with tools): what its `contextWindow` is held against. */
  providerTokens: number;
  turn: number | null;
}

/** What one run produced. */
export interface SoakRun {
  label: string;
  sessionId: string;
  goalId: string;
  /** The session workflow's id (`session/<id>`) and the Goal's. */
  workflowId: string;
  goalWorkflowId: string;
  /** The Goal's last snapshot (its `goal` Query, or its result once closed). */
  final: GoalSnapshot;
  /** Why the bench ended the run, if it did: `a request over N tokens`, `stopped: <status> <reason>`, `stalled …`. */
  endedBy: string | null;
  /** The first main request over `stopOverTokens` (baseline), index into `requests`. */
  overflowAt: number | null;
  requests: SoakRequest[];
  wallMs: number;
}

/** The session meta of a run: the scripted provider, the soak's tools, the context window and compaction settings. */
function soakMeta(o: SoakRunOptions, providerUrl: string): SessionMeta {
  const base = localProvider(providerUrl);
  return {
    sessionId: newSessionId(),
    workspace: o.workspace,
    provider: { ...base, retry: { ...base.retry, initialDelayMs: 100 } },
    model: 'scripted',
    title: `compaction soak (${o.label})`,
    toolConcurrency: 8,
    activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
    tools: SOAK_TOOLS,
    ...(o.context ? { context: o.context } : {}),
    compaction: o.compaction,
  };
}

/** Why a Goal that is neither advancing nor ended stopped (`paused no_progress: …`), or null while it advances. */
function stopOf(s: GoalSnapshot): string | null {
  const st = s.state;
  if (st.status === 'paused') return `paused ${st.reason}: ${st.message}`;
  if (st.status === 'blocked') return `blocked ${st.code}: ${st.message}`;
  if (st.status === 'budget_limited') return `budget_limited ${st.kind}: ${st.message}`;
  return null;
}

/** The watch of one running Goal: the requests sized so far and why the bench ended it, if it did. */
class Watch {
  readonly requests: SoakRequest[] = [];
  overflowAt: number | null = null;
  endedBy: string | null = null;
  private lastGrowth = performance.now();

  constructor(
    private readonly o: SoakRunOptions,
    private readonly captured: unknown[],
  ) {}

  /** Sizes the requests captured since the last call; notes the first main request over `stopOverTokens`. */
  catchUp(): void {
    while (this.requests.length < this.captured.length) {
      const i = this.requests.length;
      const body = this.captured[i];
      const compaction = isCompactionRequest(body);
      const r = {
        index: i,
        compaction,
        tokens: requestTokens(body),
        providerTokens: providerTokens(chatSurface, body as Record<string, unknown>),
        turn: compaction ? null : turnOfRequest(body),
      };
      this.captured[i] = null; // sized: a soak's bodies would otherwise hold hundreds of MB
      this.requests.push(r);
      this.lastGrowth = performance.now();
      const limit = this.o.stopOverTokens;
      if (this.overflowAt === null && !r.compaction && r.tokens > limit) this.overflowAt = r.index;
    }
  }

  /** Why the bench should end the Goal now (over the window, stopped by itself, stalled), or null. Once. */
  reasonToEnd(snap: GoalSnapshot): string | null {
    if (this.endedBy !== null) return null;
    const stop = stopOf(snap);
    if (this.overflowAt !== null) this.endedBy = `a request over ${this.o.stopOverTokens} tokens`;
    else if (stop) this.endedBy = `stopped: ${stop}`;
    else if (performance.now() - this.lastGrowth > this.o.stallMs)
      this.endedBy = `stalled ${this.o.stallMs} ms after the last request`;
    return this.endedBy;
  }
}

/**
 * Runs one Goal (see the module comment). Polls every 250 ms: the provider's
 * captured requests (sized as they arrive) and the Goal's Query. Waits at
 * most 120 s for the session to close once the Goal ended.
 * @throws what starting the Goal throws.
 */
export async function runSoak(h: Harness, o: SoakRunOptions): Promise<SoakRun> {
  const provider = await startLocalProvider({ script: o.script });
  const t0 = performance.now();
  try {
    const meta = soakMeta(o, provider.url);
    const goalId = newGoalId();
    const started = await startGoal(h.client, h.taskQueue, {
      goalId,
      objective: SOAK_OBJECTIVE,
      criteria: [],
      budgets: {},
      meta,
    });
    const sessionDone = started.sessionResult().catch(() => undefined);
    const watch = new Watch(o, provider.requests);
    let final: GoalSnapshot | null = null;
    while (final === null) {
      watch.catchUp();
      const snap = await started.goal.query<GoalSnapshot>(GOAL_QUERY).catch(() => null);
      if (snap && (snap.state.status === 'completed' || snap.state.status === 'cancelled')) final = snap;
      else if (snap && watch.reasonToEnd(snap) !== null) {
        await started.goal.executeUpdate(GOAL_CONTROL_UPDATE, {
          args: [{ commandId: `soak-cancel-${goalId}`, action: 'cancel', by: 'compaction-soak' }],
        });
      } else await sleep(250);
    }
    const closed = await Promise.race([sessionDone.then(() => true), sleep(120_000).then(() => false)]);
    if (!closed)
      process.stderr.write(`compaction-soak: session ${meta.sessionId} still open 120 s after its Goal ended\n`);
    watch.catchUp();
    return {
      label: o.label,
      sessionId: meta.sessionId,
      goalId,
      workflowId: `session/${meta.sessionId}`,
      goalWorkflowId: started.workflowId,
      final,
      endedBy: watch.endedBy,
      overflowAt: watch.overflowAt,
      requests: watch.requests,
      wallMs: performance.now() - t0,
    };
  } finally {
    await provider.close();
  }
}
