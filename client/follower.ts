import type { ProjectionStore, SessionRow } from '../activities/projection/index.js';
import { connectTemporal, type TemporalContext, type ZunoPaths } from './context.js';
import { recordedRoute } from './goal-serve.js';
import { reattachHint, type ReattachKind } from './reattach.js';
import type { Sink } from './sink.js';
import { serveOpenWork, workerMode } from './serving.js';
import { probeOf, TemporalOutage } from './temporal-outage.js';

/** What {@link attachFollower} gives a re-attaching command. */
export interface Follower {
  temporal: TemporalContext;
  /** Rides out Temporal outages for this follower (client/temporal-outage.ts). */
  outage: TemporalOutage;
  /** Stops watching Ctrl-C and closes the Temporal connection. */
  close(): Promise<void>;
}

/**
 * Re-attaches a command to work already running (`session follow`, `goal
 * show --follow`, `council show --follow`): connects to Temporal, starts
 * this host's worker when the work still runs, is of this host and none runs (unless
 * `--in-process` is asked for: then nothing is served), and makes Ctrl-C
 * stop following — exit 130, the work goes on, the line says how to follow
 * it again. `session`: the session whose route decides the host (absent: a
 * Council, of this host).
 * @throws Temporal set-up errors and what starting the worker throws.
 */
export async function attachFollower(opts: {
  paths: ZunoPaths;
  store: ProjectionStore;
  kind: ReattachKind;
  id: string;
  session?: SessionRow;
  /** The workflow followed: the host worker is started only while it runs (a finished one needs none). */
  workflowId: string;
  json: boolean;
  sink: Sink;
}): Promise<Follower> {
  const { sink, kind, id } = opts;
  const notify = opts.json ? null : (line: string) => sink.err(`${line}\n`);
  const temporal = await connectTemporal(opts.paths, notify);
  const onSigint = () => {
    sink.err(
      `zuno: stopped following ${kind} ${id}; it goes on — follow it again with \`${reattachHint(kind, id)}\`\n`,
    );
    process.exit(130);
  };
  process.once('SIGINT', onSigint);
  const close = async () => {
    process.removeListener('SIGINT', onSigint);
    await temporal.connection.close();
  };
  try {
    const mode = workerMode();
    const running = await temporal.client.workflow
      .getHandle(opts.workflowId)
      .describe()
      .then(
        (d) => d.status.name === 'RUNNING',
        () => false,
      );
    if (mode !== 'in-process' && running) {
      await serveOpenWork({
        paths: opts.paths,
        temporal,
        store: opts.store,
        baseQueue: temporal.baseQueue,
        command: `zuno ${kind} follow`,
        mode,
        notify,
        route: opts.session ? (recordedRoute(opts.session) ?? undefined) : undefined,
      });
    }
  } catch (err) {
    await close();
    throw err;
  }
  const outage = new TemporalOutage({
    probe: probeOf(temporal.client),
    say: (t) => sink.err(t),
    address: temporal.address,
    kind,
    id,
  });
  return { temporal, outage, close };
}
