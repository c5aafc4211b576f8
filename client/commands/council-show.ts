import { ZunoError } from '../../core/errors.js';
import { councilWorkflowId, COUNCIL_RUN_ID } from '../../core/council/contract.js';
import type { ProjectionStore } from '../../activities/projection/index.js';
import { resolvePaths, type ZunoPaths } from '../context.js';
import { attachFollower } from '../follower.js';
import { followCouncil } from '../council-follow.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { openExistingStore } from '../session-target.js';
import { renderCouncil } from './council-view.js';

/**
 * `zuno council show <runId> [--json]`: one Council from the projection —
 * question, preset, status and code, each seat (status, report validity,
 * attempts, usage, child session), the synthesis. `--json` prints the row.
 * `--follow` follows a Council at work to its end (exit 0 succeeded, 1
 * failed, 130 cancelled) and prints the table then.
 * @throws ZunoError `usage_error` for a malformed id, `council_not_found` for one the projection does not hold.
 */
export async function councilShowCommand(
  runId: string,
  opts: { json?: boolean; follow?: boolean },
  sink: Sink = processSink,
): Promise<number> {
  if (!COUNCIL_RUN_ID.test(runId)) throw new ZunoError('usage_error', `"${runId}" is not a council run id (cr_…)`);
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  try {
    const row = store ? await store.getCouncil(runId) : null;
    if (!store || !row) throw new ZunoError('council_not_found', `no council ${runId} in Zuno's home ${paths.home}`);
    if (opts.follow) return await followFromShow(paths, store, runId, opts.json === true, sink);
    sink.out(opts.json ? `${JSON.stringify(row, null, 2)}\n` : renderCouncil(row));
    return 0;
  } finally {
    await store?.close();
  }
}

/**
 * `council show --follow`: re-attaches to a Council whose `council run`
 * terminal went away and follows it to its end (`council-follow.ts`),
 * starting the host worker when none runs (a Council of this host waits for
 * it otherwise). Ctrl-C stops following and leaves the Council running.
 */
async function followFromShow(
  paths: ZunoPaths,
  store: ProjectionStore,
  runId: string,
  json: boolean,
  sink: Sink,
): Promise<number> {
  const f = await attachFollower({
    paths,
    store,
    kind: 'council',
    id: runId,
    workflowId: councilWorkflowId(runId),
    json,
    sink,
  });
  try {
    return await followCouncil({ store, client: f.temporal.client, address: f.temporal.address, runId, json, sink });
  } finally {
    await f.close();
  }
}
