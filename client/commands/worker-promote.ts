import { ZunoError } from '../../core/errors.js';
import { workflowBuildId } from '../../worker/build-id.js';
import { rpcMessage, setCurrentVersion } from '../../worker/versioning.js';
import { connectTemporal, resolvePaths } from '../context.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';

/** How long `zuno worker promote` waits for a worker of the build to have registered it, in ms. */
const PROMOTE_WAIT_MS = 5_000;

/**
 * `zuno worker promote [--build-id ID]`: makes this installation's build
 * (worker/build-id.ts), or the given one, the current version of the Worker
 * Deployment named after the task queue (issue 33, docs/versioning.md):
 * open workflows move to it at their next workflow task. The operator's
 * path for what a new build does by itself at start, and for a rollback to
 * an older build. Resolves to 0.
 * @throws ZunoError `version_not_registered` when no worker of the build
 *   polls the deployment, `version_conflict` when the routing changed
 *   meanwhile, `deployment_unavailable` when the server refuses the call; `temporal_unreachable` and the like from connecting.
 */
export async function workerPromoteCommand(
  opts: { json?: boolean; buildId?: string },
  sink: Sink = processSink,
): Promise<number> {
  const paths = resolvePaths();
  const temporal = await connectTemporal(paths, opts.json ? null : (line) => sink.err(`${line}\n`));
  const version = { deploymentName: temporal.baseQueue, buildId: opts.buildId ?? workflowBuildId() };
  try {
    const set = await setCurrentVersion(temporal.connection, temporal.namespace, version, {
      identity: `zuno worker promote ${process.pid}`,
      waitMs: PROMOTE_WAIT_MS,
    }).catch((err: unknown) => {
      const msg = rpcMessage(err);
      throw /has not registered/.test(msg)
        ? new ZunoError(
            'version_not_registered',
            `${msg}: start \`zuno worker\` of this build on some host, then promote it`,
          )
        : new ZunoError('deployment_unavailable', `the server refused to promote build ${version.buildId}: ${msg}`);
    });
    if (set.outcome === 'conflict') {
      throw new ZunoError(
        'version_conflict',
        `the routing of deployment ${version.deploymentName} changed while promoting build ${version.buildId}; nothing was set — see \`zuno worker status\` and try again`,
      );
    }
    const previous = set.outcome === 'set' ? set.previousBuildId || null : version.buildId;
    if (opts.json) sink.out(`${JSON.stringify({ ...version, outcome: set.outcome, previousBuildId: previous })}\n`);
    else
      sink.out(
        set.outcome === 'already_current'
          ? `build ${version.buildId} already is the current version of deployment ${version.deploymentName}\n`
          : `build ${version.buildId} is now the current version of deployment ${version.deploymentName} (was ${previous ? `build ${previous}` : 'unversioned'}); open workflows move to it at their next workflow task\n`,
      );
    return 0;
  } finally {
    await temporal.connection.close();
  }
}
