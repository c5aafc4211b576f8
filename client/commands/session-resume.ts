import { WorkflowNotFoundError, WorkflowUpdateFailedError, type WorkflowHandle } from '@temporalio/client';
import { DescendantApprovals, offerDescendantApprovals } from '../descendant-approvals.js';
import { ZunoError } from '../../core/errors.js';
import { sessionWorkflowId } from '../../core/ids.js';
import { RESUME_UPDATE, type ResumeReceipt, type ResumeRequest } from '../../core/session/updates.js';
import type { SessionResult } from '../../core/session/outcome.js';
import type { ProjectionStore, SessionRow } from '../../activities/projection/index.js';
import { loadScript } from '../../local-provider/script.js';
import { modelFor } from '../scripted-provider.js';
import { connectTemporal, openStore, resolvePaths, type TemporalContext } from '../context.js';
import { pendingActivitiesOf } from '../live-progress.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { hostId } from '../routing.js';
import { keyAvailable, serveWork, workerMode } from '../serving.js';
import { checkSessionId, sessionResultOf } from '../session-start.js';
import { sessionMcp } from '../mcp-config.js';
import { loadZunoConfig, resolveModel } from '../zuno-config.js';
import { contextForModel } from '../compaction-config.js';
import { exitFor, followSession } from './run.js';
import { probeOf, TemporalOutage } from '../temporal-outage.js';
import { asErrorCode } from '../../core/error-codes.js';

/** Options of `zuno session resume`. */
export interface ResumeOptions {
  json?: boolean;
  script?: string;
  model?: string;
  config?: string;
  worker?: boolean;
  /** Serve the session from a worker inside this command instead of the host worker service. */
  inProcess?: boolean;
}

/**
 * `zuno session resume <id>`: continues a paused session once its cause is
 * fixed (e.g. the API key exported): the paused turn runs again, served by
 * this host's `zuno worker` when one runs, else by this process; then it is
 * followed like `zuno run`. Exit codes as `zuno run`.
 * @throws ZunoError `session_id_invalid`, `session_not_found`,
 *   `session_not_paused` (completed, failed, interrupted or running: names
 *   what to do instead), `session_blocked` (names what must be fixed),
 *   `session_elsewhere`, `api_key_missing`, `model_missing` (a scripted session needs --script).
 */
export async function sessionResumeCommand(id: string, opts: ResumeOptions, sink: Sink = processSink): Promise<number> {
  checkSessionId(id);
  const script = opts.script ? await loadScript(opts.script) : undefined;
  const paths = resolvePaths();
  const cleanups: (() => Promise<unknown>)[] = [];
  const store = await openStore(paths);
  cleanups.unshift(() => store.close());
  try {
    const row = await store.getSession(id);
    if (!row) throw new ZunoError('session_not_found', `no session ${id} in Zuno's home ${paths.home}`);
    refuseUnlessPaused(row);
    const zcfg = loadZunoConfig(row.workspace, opts.config);
    if (!script && row.provider === 'local' && !opts.model) {
      throw new ZunoError(
        'model_missing',
        `session ${id} ran on a scripted model, which ended with its run: pass --script FILE (or --model provider/model) to resume it`,
      );
    }
    const notify = opts.json ? null : (line: string) => sink.err(`${line}\n`);
    const temporal = await connectTemporal(paths, notify);
    cleanups.unshift(() => temporal.connection.close());
    const handle = temporal.client.workflow.getHandle(sessionWorkflowId(id));
    await refuseClosedRun(handle, id);
    const resolved = script
      ? modelFor(undefined, script, { stateDir: paths.stateDir, owner: id })
      : resolveModel(zcfg, opts.model ?? `${row.provider}/${row.model}`);
    const baseQueue = temporal.baseQueue;
    const mode = workerMode(opts);
    const keyEnv = resolved.provider.apiKeyEnv;
    if (keyEnv !== undefined && !keyAvailable(paths, keyEnv, mode)) {
      throw new ZunoError(
        'api_key_missing',
        `provider ${resolved.provider.id} reads its API key from ${keyEnv}, which is still not set; export it, then resume`,
      );
    }
    const serving = await serveWork({
      paths,
      temporal,
      store,
      baseQueue,
      id,
      command: 'zuno session resume',
      mode,
      provider: resolved.provider,
      mcp: sessionMcp(zcfg, row.workspace),
      notify,
    });
    cleanups.unshift(() => serving.stop());
    const route = serving.route;
    const after = await store.lastEventSeq(id);
    const req: ResumeRequest = {
      route,
      provider: resolved.provider,
      model: resolved.model,
      context: contextForModel(zcfg, resolved.provider.id, resolved.model),
      source: 'cli:session-resume',
    };
    const receipt = await sendResume(handle, id, req);
    notify?.(`resuming session ${id} (paused by ${receipt.pausedBy}) on host ${hostId()}`);
    const result = await followResumed(temporal, store, handle, id, after, opts, sink);
    return exitFor(result, id, sink, route.servedBy);
  } finally {
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

/**
 * Refuses a session whose workflow run has closed (it was paused, but the
 * run ended): it continues with `zuno run --session`.
 * @throws ZunoError `session_not_paused`.
 */
async function refuseClosedRun(handle: WorkflowHandle, id: string): Promise<void> {
  const status = await handle.describe().then(
    (d) => d.status.name,
    (err: unknown) => {
      if (err instanceof WorkflowNotFoundError) return 'NOT_FOUND';
      throw err;
    },
  );
  if (status !== 'RUNNING') {
    throw new ZunoError(
      'session_not_paused',
      `session ${id} was paused, but its workflow is no longer open (${status.toLowerCase().replace('_', ' ')}): continue it with \`zuno run --session ${id} "…"\``,
    );
  }
}

/**
 * Sends the `resume` Update (the paused turn runs again with `req`'s route and model).
 * @throws ZunoError with the session's refusal code (default `session_not_paused`).
 */
async function sendResume(handle: WorkflowHandle, id: string, req: ResumeRequest): Promise<ResumeReceipt> {
  try {
    return await handle.executeUpdate<ResumeReceipt, [ResumeRequest]>(RESUME_UPDATE, { args: [req] });
  } catch (err) {
    if (err instanceof WorkflowUpdateFailedError) {
      const cause = err.cause as { type?: string; message?: string } | undefined;
      throw new ZunoError(
        asErrorCode(cause?.type) ?? 'session_not_paused',
        `session ${id}: ${cause?.message ?? err.message}`,
      );
    }
    throw err;
  }
}

/** Follows the resumed turn like `zuno run` does, through outages, announcing approvals of delegated sessions. */
async function followResumed(
  temporal: TemporalContext,
  store: ProjectionStore,
  handle: WorkflowHandle,
  id: string,
  after: number,
  opts: ResumeOptions,
  sink: Sink,
): Promise<SessionResult> {
  // The approvals of the sessions it delegated to are announced with the command that decides them.
  const below = new DescendantApprovals(store, id);
  const outage = new TemporalOutage({
    probe: probeOf(temporal.client),
    say: (t) => sink.err(t),
    address: temporal.address,
    kind: 'session',
    id,
  });
  const resultPromise = outage.retry(() => sessionResultOf(handle));
  return followSession(store, id, resultPromise, opts.json === true, sink, {
    after,
    pendingActivities: pendingActivitiesOf(temporal.client, sessionWorkflowId(id)),
    ...(opts.json !== true ? { watch: () => offerDescendantApprovals(below, null, (t) => sink.err(t)) } : {}),
  });
}

/**
 * What the projection already says about a session that is not paused: a
 * typed refusal naming what to do instead. Returns for a paused session.
 * @throws ZunoError `session_not_paused` or `session_blocked`.
 */
function refuseUnlessPaused(row: SessionRow): void {
  if (row.status === 'paused') return;
  const id = row.id;
  // A delegated session (a child, a Council seat) is continued through its parent, never by `zuno run --session`.
  const parent = row.parentSessionId;
  const next = !parent
    ? `continue it with \`zuno run --session ${id} "…"\``
    : parent.startsWith('cr_')
      ? `it is a seat of council ${parent}, which settles it: \`zuno council show ${parent} --follow\``
      : `it is a delegated session of ${parent}: continue that one (\`zuno run --session ${parent} "…"\`)`;
  if (row.status === 'blocked') {
    throw new ZunoError(
      'session_blocked',
      `session ${id} is blocked, not paused: ${row.error ?? 'its setup is broken'} — fix that (zuno.json / the provider), then ${next}`,
    );
  }
  if (row.status === 'running' || row.status === 'waiting_background') {
    throw new ZunoError(
      'session_not_paused',
      `session ${id} is running, not paused: there is nothing to resume; follow it with \`zuno session follow ${id}\``,
    );
  }
  throw new ZunoError('session_not_paused', `session ${id} is ${row.status}, not paused: ${next}`);
}
