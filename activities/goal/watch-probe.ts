import { Context } from '@temporalio/activity';
import type { StartGoalSessionInput } from '../../core/goal/activities.js';
import { evaluateWatch, type WatchProbeInput, type WatchProbeResult } from '../../core/goal/watch.js';
import { NetworkError, PublicHttpClient, type PublicHttpOptions } from '../network/index.js';
import { startSessionWorkflow } from '../session/index.js';

/** Most body bytes one check reads (a registry document of a large package fits). */
export const WATCH_PROBE_MAX_BYTES = 8 * 1024 * 1024;
/** The whole check, redirects and body included, ms. */
export const WATCH_PROBE_TOTAL_MS = 30_000;
/** Longest silence within one check, ms. */
const WATCH_PROBE_IDLE_MS = 15_000;

/**
 * Builds the `watchProbe` activity (issue 31 item 4): one GET of the watched
 * URL through the guarded client (NW3: every address validated at connect
 * time, the session's `network.allow_private` the only way to a private
 * one), judged against the condition. An HTTP status or a network failure is
 * a result (`error` names the code and phase; no query string), never a
 * thrown error: the workflow decides when to check again. Safe: reads only.
 */
export function createWatchProbe(opts: Pick<PublicHttpOptions, 'resolver'> = {}) {
  return async function watchProbe(input: WatchProbeInput): Promise<WatchProbeResult> {
    const client = new PublicHttpClient({
      allowPrivate: input.allowPrivate,
      ...(opts.resolver ? { resolver: opts.resolver } : {}),
    });
    try {
      const res = await client.fetch(input.url, {
        maxBytes: WATCH_PROBE_MAX_BYTES,
        totalTimeoutMs: WATCH_PROBE_TOTAL_MS,
        idleTimeoutMs: WATCH_PROBE_IDLE_MS,
        signal: Context.current().cancellationSignal,
        headers: { accept: 'application/json, text/*;q=0.9, */*;q=0.5' },
      });
      const judged = evaluateWatch(input.until, { status: res.status, body: res.body.toString('utf8') });
      return {
        matched: judged.matched,
        status: res.status,
        fetchedAtMs: Date.now(),
        ...(judged.value !== undefined ? { value: judged.value } : {}),
        ...(judged.error ? { error: { code: 'watch_bad_body', message: judged.error } } : {}),
      };
    } catch (err) {
      if (!(err instanceof NetworkError)) throw err;
      // A refused private address is the person's to allow (the check repeats until the watch times out).
      const hint = err.code === 'network_refused' ? ' — allow it in zuno.json network.allow_private' : '';
      return { matched: false, fetchedAtMs: Date.now(), error: { code: err.code, message: `${err.message}${hint}` } };
    } finally {
      await client.close();
    }
  };
}

/**
 * Builds the `startGoalSession` activity (issue 31 item 4): once a watched
 * Goal's watch reported, starts its session with the first input — the
 * objective and the report — through the activity's Temporal client.
 * Idempotent: the session workflow is attached to when it runs already and
 * the input carries a fixed client message id, so a retried attempt admits
 * it once. The session runs on the Goal's workflow task queue.
 */
export function createStartGoalSession() {
  return async function startGoalSession(input: StartGoalSessionInput): Promise<{ started: boolean }> {
    await startSessionWorkflow(
      Context.current().client,
      input.taskQueue,
      input.meta,
      { text: input.text, clientMessageId: `cmi_watch_${input.goalId}` },
      { exitWhenIdle: true, attach: true },
    );
    return { started: true };
  };
}
