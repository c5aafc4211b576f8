import type { PermissionPolicy } from '../../core/permission/types.js';
import type { McpSessionConfig } from '../../core/mcp/types.js';
import type { NetworkSessionConfig } from '../../core/network.js';
import type { ProviderConfig } from '../../core/provider-config.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { expect, vi } from 'vitest';
import type { Client, Connection } from '@temporalio/client';
import type { Worker } from '@temporalio/worker';
import { DEFAULT_ACTIVITY_DEFAULTS, type ActivityDefaults } from '../../core/activity-defaults.js';
import type { SandboxPolicy } from '../../core/sandbox.js';
import type { SessionMeta, SessionRoute } from '../../core/session/meta.js';
import type { SessionResult } from '../../core/session/outcome.js';
import type { SessionState } from '../../core/session/state.js';
import { openProjectionStore } from '../../activities/projection/open.js';
import type { ProjectionStore } from '../../activities/projection/types.js';
import { startLocalProvider } from '../../local-provider/server.js';
import type { Script } from '../../local-provider/script.js';
import { installRuntime } from '../../client/runtime.js';
import { newGoalId, type StartedGoal, startGoal } from '../../client/goal-start.js';
import { newSessionId, startSession } from '../../client/session-start.js';
import type { GoalBudgets } from '../../core/goal/budgets.js';
import type { DelegationLink } from '../../core/delegation/link.js';
import type { CompactionSettings, ContextWindow } from '../../core/compaction/settings.js';
import { localProvider } from '../../client/zuno-config.js';
import { connectClient } from '../../worker/connection.js';
import { createZunoWorker } from '../../worker/worker.js';

/** A test environment: real Temporal (given address), a real store, a real in-process worker on a unique task queue. */
export interface Harness {
  stateDir: string;
  store: ProjectionStore;
  client: Client;
  connection: Connection;
  taskQueue: string;
  address: string;
  worker: Worker | null;
  /** Runs one scripted session to its end through the real local provider server. */
  runSession(opts: RunSessionOptions): Promise<SessionRun>;
  /** Starts a scripted session and returns without waiting. */
  startScripted(opts: RunSessionOptions): Promise<StartedRun>;
  /** Starts a scripted Goal (its `goal` workflow, then its session; the prompt is the objective) and returns without waiting. */
  startScriptedGoal(opts: RunSessionOptions & GoalStartOptions): Promise<StartedGoalRun>;
  close(): Promise<void>;
}

export interface RunSessionOptions {
  script: Script;
  /** false keeps the session open after its first turn (it waits for more input). Default true. */
  exitWhenIdle?: boolean;
  prompt: string;
  workspace: string;
  activityDefaults?: ActivityDefaults;
  toolConcurrency?: number;
  /** Adjusts the local provider the session is frozen with (surface, retry block, replay option…). */
  provider?: (base: ProviderConfig) => ProviderConfig;
  /** Routes the session's activities (the harness's worker serves only its own task queue). */
  route?: SessionRoute;
  /** The session's id (default: a new one) — a script that cites a receipt (derived from it) needs it up front. */
  sessionId?: string;
  /** The session's permission policy (default: none — every call is admitted, as in sessions before permissions). */
  permission?: PermissionPolicy;
  /** The session's sandbox policy (default: none recorded — the auto default). */
  sandbox?: SandboxPolicy;
  /** The session's agent role and tool catalog (default: none recorded — `build`, every tool). */
  agent?: string;
  tools?: string[];
  /** For a session standing in for a child: its delegation link (issue 12). */
  delegation?: DelegationLink;
  /** The model's context window and the compaction settings (issue 28; default: none, the defaults). */
  context?: ContextWindow;
  compaction?: CompactionSettings;
  /** The session's MCP servers (issue 30; default: none). */
  mcp?: McpSessionConfig;
  /** zuno.json `network` as the session carries it (issue 31; default: none — no private address reachable). */
  network?: NetworkSessionConfig;
}

/** What a Goal adds to a session start. */
export interface GoalStartOptions {
  criteria?: { text: string; needsEvidence: boolean; check?: string }[];
  budgets?: GoalBudgets;
}

export interface StartedGoalRun extends StartedGoal {
  sessionId: string;
  providerRequests: unknown[];
  closeProvider(): Promise<void>;
}

export interface StartedRun {
  sessionId: string;
  workflowId: string;
  providerRequests: unknown[];
  result(): Promise<SessionResult>;
  closeProvider(): Promise<void>;
}

export interface SessionRun {
  sessionId: string;
  workflowId: string;
  result: SessionResult;
  providerRequests: unknown[];
}

/**
 * Creates a harness. `withWorker: false` leaves worker hosting to the test
 * (e.g. a worker in a child process). `databaseUrl` selects PostgreSQL.
 * `connected` replaces the harness's own client and connection (the
 * time-skipping environment's, whose `result()` lets the test server skip
 * time); the harness then leaves closing them to their owner. `workflowsPath` is the worker's
 * bundle entry (fixture workflows next to Zuno's).
 */
export async function createHarness(opts: {
  address: string;
  withWorker?: boolean;
  databaseUrl?: string;
  taskQueue?: string;
  stateDir?: string;
  connected?: { client: Client; connection: Connection };
  workflowsPath?: string;
}): Promise<Harness> {
  installRuntime('WARN');
  const stateDir = opts.stateDir ?? mkdtempSync(join(tmpdir(), 'zuno-harness-'));
  const store = await openProjectionStore({
    zunoDir: stateDir,
    ...(opts.databaseUrl ? { databaseUrl: opts.databaseUrl } : {}),
  });
  const { client, connection } =
    opts.connected ??
    (await connectClient({
      address: opts.address,
      namespace: 'default',
      connectTimeoutMs: 5000,
    }));
  const taskQueue = opts.taskQueue ?? `zuno-test-${newSessionId()}`;
  let worker: Worker | null = null;
  let running: Promise<void> | null = null;
  let closeWorker: (() => Promise<void>) | null = null;
  if (opts.withWorker !== false) {
    const w = await createZunoWorker({
      address: opts.address,
      namespace: 'default',
      taskQueue,
      store,
      stateDir,
      ...(opts.workflowsPath ? { workflowsPath: opts.workflowsPath } : {}),
    });
    worker = w.worker;
    closeWorker = w.close;
    running = worker.run();
  }
  const scriptedMeta = (o: RunSessionOptions, url: string): SessionMeta => ({
    sessionId: o.sessionId ?? newSessionId(),
    workspace: o.workspace,
    provider: (o.provider ?? ((p) => p))({
      ...localProvider(url),
      retry: { ...localProvider(url).retry, initialDelayMs: 100 },
    }),
    model: 'scripted',
    title: o.prompt.slice(0, 80),
    toolConcurrency: o.toolConcurrency ?? 8,
    activityDefaults: o.activityDefaults ?? DEFAULT_ACTIVITY_DEFAULTS,
    ...(o.route ? { route: o.route } : {}),
    ...(o.permission ? { permission: o.permission } : {}),
    ...(o.sandbox ? { sandbox: o.sandbox } : {}),
    ...(o.agent ? { agent: o.agent } : {}),
    ...(o.tools ? { tools: o.tools } : {}),
    ...(o.delegation ? { delegation: o.delegation } : {}),
    ...(o.context ? { context: o.context } : {}),
    ...(o.compaction ? { compaction: o.compaction } : {}),
    ...(o.mcp ? { mcp: o.mcp } : {}),
    ...(o.network ? { network: o.network } : {}),
  });
  const startScriptedGoal = async (o: RunSessionOptions & GoalStartOptions): Promise<StartedGoalRun> => {
    const provider = await startLocalProvider({ script: o.script });
    const meta = scriptedMeta(o, provider.url);
    const started = await startGoal(client, taskQueue, {
      goalId: newGoalId(),
      objective: o.prompt,
      criteria: o.criteria ?? [],
      budgets: o.budgets ?? {},
      meta,
    }).catch(async (err) => {
      await provider.close();
      throw err;
    });
    return {
      ...started,
      sessionId: meta.sessionId,
      providerRequests: provider.requests,
      closeProvider: () => provider.close(),
    };
  };
  const startScripted = async (o: RunSessionOptions): Promise<StartedRun> => {
    const provider = await startLocalProvider({ script: o.script });
    const meta = scriptedMeta(o, provider.url);
    const started = await startSession(
      client,
      taskQueue,
      meta,
      { text: o.prompt },
      { exitWhenIdle: o.exitWhenIdle ?? true },
    ).catch(async (err) => {
      await provider.close();
      throw err;
    });
    return {
      sessionId: meta.sessionId,
      workflowId: started.workflowId,
      providerRequests: provider.requests,
      result: started.result,
      closeProvider: () => provider.close(),
    };
  };
  return {
    stateDir,
    store,
    client,
    connection,
    taskQueue,
    address: opts.address,
    worker,
    startScripted,
    startScriptedGoal,
    async runSession(o) {
      const s = await startScripted(o);
      try {
        const result = await s.result();
        return { sessionId: s.sessionId, workflowId: s.workflowId, result, providerRequests: s.providerRequests };
      } finally {
        await s.closeProvider();
      }
    },
    async close() {
      if (worker && running) {
        worker.shutdown();
        await running.catch(() => undefined);
      }
      await closeWorker?.();
      if (!opts.connected) await connection.close();
      await store.close();
      if (!opts.stateDir) rmSync(stateDir, { recursive: true, force: true });
    },
  };
}

/**
 * Waits (≤ 30 s) until the session's `state` query reports `phase` and returns that state
 * (a paused session, say, whose workflow stays open for `resume`).
 */
export async function waitForPhase(
  client: Harness['client'],
  workflowId: string,
  phase: SessionState['phase'],
): Promise<SessionState> {
  const handle = client.workflow.getHandle(workflowId);
  let state: SessionState | undefined;
  await vi.waitFor(
    async () => {
      state = await handle.query<SessionState>('state');
      expect(state.phase).toBe(phase);
    },
    { timeout: 30_000, interval: 100 },
  );
  return state!;
}

/**
 * Starts a worker of its own on `taskQueue` (a route's host queue) sharing the
 * harness's server and projection; `stop()` shuts it down and closes it.
 */
export async function startRouteWorker(h: Harness, taskQueue: string): Promise<{ stop(): Promise<void> }> {
  const w = await createZunoWorker({
    address: h.address,
    namespace: 'default',
    taskQueue,
    store: h.store,
    stateDir: h.stateDir,
  });
  const running = w.worker.run();
  return {
    async stop() {
      w.worker.shutdown();
      await running;
      await w.close();
    },
  };
}
