import { promptApproval, promptApprovalOf } from '../approval-prompt.js';
import { childSessionWords, DescendantApprovals, offerDescendantApprovals } from '../descendant-approvals.js';
import { sessionWorkflowId } from '../../core/ids.js';
import { ZunoError } from '../../core/errors.js';
import type { AdmissionReceipt } from '../../core/session/inbox.js';
import { type SessionMeta, type SessionRoute } from '../../core/session/meta.js';
import type { InterruptReceipt } from '../../core/session/updates.js';
import type { SessionResult } from '../../core/session/outcome.js';
import type { EventRow, ProjectionStore, SessionRow } from '../../activities/projection/index.js';
import { modelFor } from '../scripted-provider.js';
import { connectTemporal, type Notify, type TemporalContext } from '../context.js';
import { EV } from '../../core/events.js';
import { pendingActivitiesOf, type PendingActivitiesReader } from '../live-progress.js';
import { eventToJsonLine, HumanRenderer, isTerminalEvent, processSink, sessionEndLine } from '../render.js';
import type { Sink } from '../sink.js';
import { hostWorkerGuard, serveOpenWork, serveWork } from '../serving.js';
import { interruptSession, newSessionId, titleOf } from '../session-start.js';
import { admitInput, type AdmittedInput, recordSessionStart, runningSession } from '../session-admit.js';
import { sessionMcp } from '../mcp-config.js';
import { sessionMetaFor } from '../session-meta.js';
import { noteUnknownWindow } from '../compaction-config.js';
import { planRun, type RunOptions, type RunPlan } from './run-plan.js';
import { probeOf, TemporalOutage } from '../temporal-outage.js';

/** Largest prompt read from standard input, in bytes (the session refuses more than 512 KiB anyway). */
const STDIN_PROMPT_MAX_BYTES = 1024 * 1024;

/**
 * `zuno run -`: the prompt is everything on standard input (UTF-8), as
 * written — a trailing newline is dropped.
 * @throws ZunoError `input_rejected` when standard input is a terminal, is
 *   empty (only white space), or holds more than 1 MiB.
 */
export async function promptFromStdin(stdin: NodeJS.ReadStream): Promise<string> {
  if (stdin.isTTY) {
    throw new ZunoError(
      'input_rejected',
      '`zuno run -` reads the prompt from standard input: pipe it in (echo "…" | zuno run -)',
    );
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    bytes += b.length;
    if (bytes > STDIN_PROMPT_MAX_BYTES) {
      throw new ZunoError(
        'input_rejected',
        `standard input holds more than ${STDIN_PROMPT_MAX_BYTES} bytes; put large material in a file`,
      );
    }
    chunks.push(b);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text.trim() === '')
    throw new ZunoError(
      'input_rejected',
      'standard input was empty or only white space: pipe the prompt into `zuno run -`',
    );
  return text;
}

/** How long Ctrl-C's interrupt waits for a worker to take it before saying none does, in ms. */
export const CTRL_C_DELIVERY_MS = 5_000;

/** Poll interval of the event tail, in ms. */
export const TAIL_EVERY_MS = 60;

/** How often a follower looks for approvals of the sessions below the followed one, in ms. */
export const WATCH_EVERY_MS = 500;

/**
 * `zuno run "<prompt>"`: starts a session workflow on Temporal (embedded dev
 * server unless configured), runs an in-process worker unless a standalone
 * one serves the task queue, shows progress from the stored events, and
 * resolves to the process exit code: 0 when the session completed, 1 when it
 * failed or paused (a one-line reason is printed), 130 when Ctrl-C interrupted it.
 * @throws ZunoError for set-up failures (config, Temporal, workspace, script, model).
 */
export async function runCommand(prompt: string, opts: RunOptions, sink: Sink = processSink): Promise<number> {
  // Ctrl-C (TD10): the first one hard-interrupts the running turn and keeps
  // following until the session has recorded how its calls ended; a second
  // one (or one before the session started) stops following at once. Either
  // way the exit code is 130 and the session stays durable in Temporal.
  const progress: RunProgress = { sessionId: null, interrupt: null, interrupting: false };
  let onSigint: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onSigint = () => {
      if (progress.interrupt && !progress.interrupting) {
        progress.interrupting = true;
        sink.err(
          `zuno: interrupting session ${progress.sessionId}: running calls get 2 s to stop, then are recorded uncertain (Ctrl-C again to stop following)\n`,
        );
        progress.interrupt().then(
          (r) => {
            if (r.backgroundCancelled.length > 0)
              sink.err(`zuno: stopped background task(s) ${r.backgroundCancelled.join(', ')}\n`);
            else if (!r.interrupted) sink.err('zuno: nothing was running\n');
            // The turn settles on the session's worker; if none records it, a scripted session is ended here.
            if (progress.scripted) {
              setTimeout(
                () =>
                  reject(
                    new ZunoError(
                      'interrupted',
                      `session ${progress.sessionId} did not settle its interrupt: no worker recorded it`,
                    ),
                  ),
                SCRIPTED_SETTLE_MS,
              ).unref();
            }
          },
          (err: unknown) => reject(new ZunoError('interrupted', `could not interrupt: ${(err as Error).message}`)),
        );
        return;
      }
      reject(
        new ZunoError(
          'interrupted',
          !progress.sessionId
            ? 'interrupted before the session started'
            : progress.scripted
              ? `stopped following session ${progress.sessionId}`
              : `stopped following session ${progress.sessionId}; it goes on in Temporal: follow it again with \`zuno session follow ${progress.sessionId}\` (on this host: it starts the host worker when none runs)`,
        ),
      );
    };
    process.on('SIGINT', onSigint);
    process.on('SIGTERM', onSigint); // `kill`, `timeout`, `docker stop`: handled as Ctrl-C, never left for a later worker
  });
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    return await Promise.race([runSession(prompt, opts, sink, progress, cleanups), interrupted]);
  } finally {
    process.removeListener('SIGINT', onSigint!);
    process.removeListener('SIGTERM', onSigint!);
    await endScriptedSession(progress, sink);
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

/** How long a scripted session left behind gets to settle an interrupt before its run is terminated, in ms. */
export const SCRIPTED_SETTLE_MS = 6_000;

/**
 * A scripted session's model lives in this process (the local provider):
 * when `zuno run` stops following before the session's turn ended, the
 * session is interrupted (running calls settle and are recorded) and, if it
 * is still open after {@link SCRIPTED_SETTLE_MS}, its run is terminated —
 * never left for a later worker to fail against a provider that is gone.
 */
async function endScriptedSession(progress: RunProgress, sink: Sink): Promise<void> {
  if (!progress.scripted || progress.finished || !progress.sessionId || !progress.terminate) return;
  const id = progress.sessionId;
  let ended = false;
  // Admitted (a worker took the first input): interrupt it and give its calls time to settle and be recorded.
  if (progress.settled) {
    if (!progress.interrupting && progress.interrupt) await progress.interrupt().catch(() => undefined);
    ended = await Promise.race([
      progress.settled.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), SCRIPTED_SETTLE_MS)),
    ]);
  }
  if (!ended) {
    await progress
      .terminate('zuno run ended: the scripted model of this session lived in that process')
      .catch(() => undefined);
    await progress.recordTerminated?.().catch(() => undefined);
  }
  sink.err(
    `zuno: session ${id} ended with this run: its scripted model was served by this process (${ended ? 'interrupted' : 'terminated'}; nothing of it keeps running)\n`,
  );
}

/** An admitted prompt: its receipt, the workflow, its result, and the last event before it (`after`). */
interface Admitted extends AdmittedInput {
  after: number;
}

/** What the run has reached, for the interrupt message. */
interface RunProgress {
  sessionId: string | null;
  /** Sends the TD10 hard interrupt, once the session has started. */
  interrupt: (() => Promise<InterruptReceipt>) | null;
  /** true once the first Ctrl-C asked for an interrupt. */
  interrupting: boolean;
  /** The session's model is a script served by this process: it cannot go on once this process ends. */
  scripted?: boolean;
  /** Terminates the session's workflow run (the last resort for a scripted session left behind). */
  terminate?: (reason: string) => Promise<void>;
  /** true once the followed turn ended. */
  finished?: boolean;
  /** Resolves when the session's workflow run has closed (however it ended). */
  settled?: Promise<unknown>;
  /** After {@link RunProgress.terminate}: records in the projection that the session ended and its admitted input was never answered. */
  recordTerminated?: () => Promise<void>;
}

/** `zuno run` once its signals are wired: plan, connect, serve, admit the prompt, follow; the exit code. */
async function runSession(
  prompt: string,
  opts: RunOptions,
  sink: Sink,
  progress: RunProgress,
  cleanups: (() => Promise<unknown>)[],
): Promise<number> {
  const notify: Notify = opts.json ? null : (line) => sink.err(`${line}\n`);
  // Everything that can be checked offline is checked before anything starts or is written.
  const plan = await planRun(prompt, opts, cleanups);
  const temporal = await connectTemporal(plan.paths, notify);
  cleanups.unshift(() => temporal.connection.close());
  const sessionId = plan.existing?.id ?? newSessionId();
  const resolved = modelFor(plan.configured, plan.script, { stateDir: plan.paths.stateDir, owner: sessionId });
  const live = plan.existing ? await runningSession(temporal, plan.existing) : null;
  if (live) refuseLiveChanges(plan.existing!, opts);
  // A running session keeps its route; a new or reopened one is routed to this host's worker (or to this process).
  const serveOpts = {
    paths: plan.paths,
    temporal,
    store: plan.store,
    baseQueue: temporal.baseQueue,
    command: 'zuno run',
    mode: plan.mode,
    provider: resolved.provider,
    mcp: sessionMcp(plan.zcfg, plan.workspace),
    notify,
  };
  const serving = live
    ? await serveOpenWork({ ...serveOpts, route: live.route })
    : await serveWork({ ...serveOpts, id: sessionId });
  cleanups.unshift(() => serving.stop());
  const meta = sessionMetaFor({
    sessionId,
    workspace: plan.workspace,
    resolved,
    title: plan.existing?.title ?? titleOf(prompt),
    zcfg: plan.zcfg,
    temporal,
    route: serving.route,
    agent: plan.agent,
  });
  const started = await admitAndTrack(plan, temporal, meta, prompt, live !== null, progress, serving.servedHere);
  notify?.(
    plan.existing
      ? `continuing session ${sessionId} (your message is ${receiptWords(started.receipt)})`
      : `session ${sessionId} started`,
  );
  // CP6: a model with no known window is never compacted before a request; say so once, when its meta is set.
  if (!live) noteUnknownWindow(meta, notify);
  const result = await followRun(plan, temporal, started, opts, sink, progress, notify);
  progress.finished = true;
  return exitFor(result, sessionId, sink, serving.servedHere ? 'run' : serving.route?.servedBy);
}

/**
 * Refuses what cannot change while the session runs (another `zuno run`
 * drives it): its model, or input while it is paused.
 * @throws ZunoError `options_conflict`, `session_paused`.
 */
function refuseLiveChanges(existing: SessionRow, opts: RunOptions): void {
  if (opts.script !== undefined || opts.model !== undefined) {
    throw new ZunoError(
      'options_conflict',
      `session ${existing.id} is running (another zuno run drives it): its model cannot change now — send the prompt without --script/--model, or once it is idle`,
    );
  }
  if (existing.status === 'paused') {
    throw new ZunoError(
      'session_paused',
      `session ${existing.id} is paused (${existing.error ?? 'a person must act'}): fix that, then \`zuno session resume ${existing.id}\`; it takes new input after that`,
    );
  }
}

/**
 * Lists the session (a new or reopened one at once), admits the prompt and
 * wires `progress` (interrupt, terminate, what to record when this run ends
 * a scripted session); returns the admission.
 */
async function admitAndTrack(
  plan: RunPlan,
  temporal: TemporalContext,
  meta: SessionMeta,
  prompt: string,
  live: boolean,
  progress: RunProgress,
  servesHere: boolean,
): Promise<Admitted> {
  const { store, existing } = plan;
  const sessionId = meta.sessionId;
  progress.sessionId = sessionId;
  // In process, the session's worker ends with this command: a scripted session is ended with it, as before.
  progress.scripted = plan.script !== undefined && servesHere;
  progress.terminate = (reason: string) =>
    temporal.client.workflow
      .getHandle(sessionWorkflowId(sessionId))
      .terminate(reason)
      .then(() => undefined);
  const after = existing ? await store.lastEventSeq(sessionId) : 0;
  // A new or reopened session is listed at once, even before a worker takes its first step;
  // an open one only once it admitted the input (it may refuse it).
  if (!live) await recordSessionStart(store, meta, existing);
  progress.recordTerminated = () => recordTerminated(store, sessionId, prompt, null);
  const started = await admitInput(store, temporal, meta, prompt, live, existing);
  progress.recordTerminated = () => recordTerminated(store, sessionId, prompt, started.receipt);
  // Ctrl-C: a worker takes the interrupt at once, or none serves the session (reported after a few seconds).
  progress.interrupt = () => interruptSession(temporal.client, sessionId, 'cli:ctrl-c', CTRL_C_DELIVERY_MS);
  return { ...started, after };
}

/**
 * Follows the admitted turn to its end: through Temporal outages, asking
 * (or announcing) approvals of this session and the sessions it delegated
 * to, and restarting the host worker service if it dies meanwhile.
 */
async function followRun(
  plan: RunPlan,
  temporal: TemporalContext,
  started: Admitted,
  opts: RunOptions,
  sink: Sink,
  progress: RunProgress,
  notify: Notify,
): Promise<SessionResult> {
  const { store } = plan;
  const sessionId = progress.sessionId!;
  // An outage rejects the result in flight: it is obtained again once Temporal answers (client/temporal-outage.ts).
  const outage = new TemporalOutage({
    probe: probeOf(temporal.client),
    say: (t) => sink.err(t),
    address: temporal.address,
    kind: 'session',
    id: sessionId,
  });
  const resultPromise = outage.retry(() => started.result());
  progress.settled = resultPromise.catch(() => undefined);
  const askHere = opts.json !== true && process.stdin.isTTY === true;
  const deps = { client: temporal.client, store, sink };
  // The approvals of the sessions this one delegated to are asked here too (issue 12), or announced.
  const below = new DescendantApprovals(store, sessionId);
  const workerGuard = hostWorkerGuard({ paths: plan.paths, temporal, baseQueue: temporal.baseQueue, notify });
  return followSession(store, sessionId, resultPromise, opts.json === true, sink, {
    after: started.after,
    pendingActivities: pendingActivitiesOf(temporal.client, started.workflowId),
    ...(askHere ? { onApproval: (e: EventRow) => promptApproval(e, deps) } : {}),
    watch: async () => {
      // The host worker this run relies on is started again if it died while the run follows.
      if (plan.mode === 'service') await workerGuard();
      if (opts.json !== true)
        await offerDescendantApprovals(
          below,
          askHere ? (a) => promptApprovalOf(a.row, childSessionWords(a), deps) : null,
          (t) => sink.err(t),
        );
    },
  });
}

/**
 * The exit code of a followed session (0 completed, 130 interrupted, 1
 * otherwise), after printing its one-line reason and what to do next when it
 * did not complete; `servedBy` says who ran its model steps (a standalone
 * worker needs the key in its own environment).
 */
export function exitFor(
  result: SessionResult,
  sessionId: string,
  sink: Sink,
  servedBy?: SessionRoute['servedBy'],
): number {
  if (result.status === 'interrupted') {
    sink.err(
      `zuno: interrupted: session ${sessionId} interrupted; \`zuno session show ${sessionId}\` lists how each call ended\n`,
    );
    return 130;
  }
  if (result.status !== 'completed') {
    sink.err(sessionEndLine(sessionId, result.status, result.error));
    if (result.status === 'paused') {
      if (servedBy === 'worker' && result.error?.code === 'provider_auth') {
        sink.err(
          "  this host's worker runs its model steps: export the key in this shell — `zuno session resume` hands it to the worker\n",
        );
      }
      // A missing workspace's message already says what to restore and how to resume (issue 33).
      if (result.error?.code !== 'workspace_unavailable')
        sink.err(`  fix it, then resume: zuno session resume ${sessionId}\n`);
    }
    if (result.status === 'blocked') sink.err(`  fix it, then continue: zuno run --session ${sessionId} "…"\n`);
    return 1;
  }
  return 0;
}

/** An admission receipt in plain words. */
function receiptWords(r: AdmissionReceipt): string {
  return r.status === 'driven'
    ? 'being answered now'
    : r.status === 'steered'
      ? 'joining the running turn'
      : 'queued behind earlier input';
}

/**
 * A session whose run `zuno run` terminated (its scripted model is gone):
 * the projection says it ended interrupted, and the input this run admitted —
 * which no model step may have carried yet — is recorded cancelled, never
 * dropped (its id stays taken, so a later continuation numbers on after it).
 */
async function recordTerminated(
  store: ProjectionStore,
  sessionId: string,
  prompt: string,
  receipt: AdmissionReceipt | null,
): Promise<void> {
  const now = Date.now();
  if (receipt) {
    const known = (await store.listInputs(sessionId)).find((i) => i.id === receipt.inputId);
    if (!known) {
      await store.upsertInput({
        id: receipt.inputId,
        sessionId,
        text: prompt,
        clientMessageId: null,
        admission: receipt.status,
        state: 'cancelled',
        admittedAtMs: now,
        updatedAtMs: now,
      });
    } else if (known.state !== 'completed') {
      await store.setInputState(sessionId, receipt.inputId, 'cancelled', now);
    }
  }
  await store.setSessionStatus(sessionId, 'interrupted', {
    updatedAtMs: now,
    error: 'terminated: its scripted model ended with the zuno run that served it',
  });
}

/**
 * Tails the session's stored events until the workflow finished and its
 * terminal event was shown; renders them as NDJSON or for humans (with the
 * live progress of long tool calls read through `pendingActivities`).
 */
export async function followSession(
  store: ProjectionStore,
  sessionId: string,
  resultPromise: Promise<SessionResult>,
  json: boolean,
  sink: Sink,
  opts: {
    after?: number;
    pendingActivities?: PendingActivitiesReader;
    /** Asks the person at the terminal about an `approval.requested` event (client/approval-prompt.ts). */
    onApproval?: (e: EventRow) => Promise<void>;
    /** Runs about every {@link WATCH_EVERY_MS} while following (the approvals of the sessions it delegated to). */
    watch?: () => Promise<void>;
  } = {},
): Promise<SessionResult> {
  const { pendingActivities } = opts;
  let after = opts.after ?? 0;
  let watchedAtMs = 0;
  const human = new HumanRenderer(sink, process.stdout.isTTY === true, pendingActivities ? { pendingActivities } : {});
  let result: SessionResult | undefined;
  let failure: unknown;
  resultPromise.then(
    (r) => {
      result = r;
    },
    (err) => {
      failure = err;
    },
  );
  let sawTerminal = false;
  for (;;) {
    // The terminal event is stored before the workflow completes, so a poll
    // that starts after the result arrived sees everything.
    const finishedBeforePoll = result;
    const events: EventRow[] = await store.listEvents(sessionId, after, 500);
    for (const e of events) {
      after = e.seq;
      if (json) sink.out(eventToJsonLine(e));
      else human.render(e);
      if (isTerminalEvent(e.type)) sawTerminal = true;
      if (e.type === EV.approvalRequested && opts.onApproval) await opts.onApproval(e);
      // A paused session keeps its workflow open (waiting for \`zuno session resume\`): following ends here.
      if (e.type === EV.paused) return pausedResult(sessionId, e);
    }
    if (failure) throw failure;
    if (finishedBeforePoll && (sawTerminal || events.length === 0)) return finishedBeforePoll;
    if (opts.watch && Date.now() - watchedAtMs >= WATCH_EVERY_MS) {
      watchedAtMs = Date.now();
      await opts.watch();
    }
    if (events.length < 500) await new Promise((r) => setTimeout(r, TAIL_EVERY_MS));
  }
}

/** The result a paused turn leaves, read from its `session.paused` event. */
function pausedResult(sessionId: string, e: EventRow): SessionResult {
  const data = e.data as { turn?: number; error?: { code: string; message: string } | null };
  return {
    sessionId,
    status: 'paused',
    turns: (data.turn ?? 0) + 1,
    ...(data.error ? { error: data.error } : {}),
  };
}
