import { ZunoError } from '../../core/errors.js';
import { COUNCIL_RUN_ID } from '../../core/council/contract.js';
import { resolvePaths } from '../context.js';
import { processSink, type Sink } from '../render.js';
import { openExistingStore } from '../session-target.js';
import { renderCouncil } from './council-view.js';

/**
 * `zuno council show <runId> [--json]`: one Council from the projection —
 * question, preset, status and code, each seat (status, report validity,
 * attempts, usage, child session), the synthesis. `--json` prints the row.
 * @throws ZunoError `usage_error` for a malformed id, `council_not_found` for one the projection does not hold.
 */
export async function councilShowCommand(runId: string, opts: { json?: boolean }, sink: Sink = processSink) {
  if (!COUNCIL_RUN_ID.test(runId)) throw new ZunoError('usage_error', `"${runId}" is not a council run id (cr_…)`);
  const paths = resolvePaths();
  const store = await openExistingStore(paths);
  try {
    const row = store ? await store.getCouncil(runId) : null;
    if (!row) throw new ZunoError('council_not_found', `no council ${runId} in Zuno's home ${paths.home}`);
    sink.out(opts.json ? `${JSON.stringify(row, null, 2)}\n` : renderCouncil(row));
    return 0;
  } finally {
    await store?.close();
  }
}
