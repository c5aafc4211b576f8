/**
 * Routes of processes that are gone, adopted by this host's worker (issue
 * 25 item 3). Before the host worker service, a `zuno run`, `goal start`,
 * `council run` or `session resume` served its work on a queue of its own
 * (`<base>/host/<host>/session/<id>`), and nobody else polled it: when that
 * command died, its session, Goal, Council and their seats and children
 * waited for good. The host worker looks for such routes every
 * {@link ADOPT_EVERY_MS} — the open sessions and Councils of the projection
 * whose route is one of this host's per-process queues and whose workflow is
 * still running — and serves the activities of each one no live process of
 * this host polls, until its work has ended. Histories recorded before the
 * service therefore finish unchanged (no workflow code changes).
 */
import type { ProjectionStore, SessionRow } from '../activities/projection/index.js';
import { councilWorkflowId } from '../core/council/contract.js';
import { ZunoKind } from '../core/search-attributes.js';
import type { TemporalContext } from './context.js';
import { liveLocalPoller } from './route-pollers.js';
import { hostTaskQueue, sessionTaskQueue } from './routing.js';

/** How often the host worker looks for routes to adopt, in ms. */
export const ADOPT_EVERY_MS = 10_000;
/** Scans in a row a route must be unused before its adopted worker stops. */
const RELEASE_AFTER_SCANS = 3;
/** Session statuses whose workflow may still schedule activities. */
const OPEN_SESSION_STATUSES = ['running', 'waiting_background', 'paused'] as const;

/** What {@link RouteAdoption} needs. */
export interface RouteAdoptionOptions {
  store: ProjectionStore;
  temporal: Pick<TemporalContext, 'client' | 'connection' | 'namespace'>;
  /** The shared workflow task queue (temporal.yaml `taskQueue`). */
  baseQueue: string;
  host: string;
  /** Starts serving a queue's activities; resolves to its stop function (`RoutedWorker.serveQueue`). */
  serveQueue: (taskQueue: string) => Promise<() => Promise<void>>;
  /** One line per adoption or release (the service log). */
  log: (line: string) => void;
}

/** The per-process routes this host's worker serves, kept up to date by {@link RouteAdoption.scan}. */
export class RouteAdoption {
  private readonly adopted = new Map<string, { stop: () => Promise<void>; idleScans: number }>();

  constructor(private readonly opts: RouteAdoptionOptions) {}

  /** The task queues adopted now. */
  queues(): string[] {
    return [...this.adopted.keys()];
  }

  /**
   * One pass: adopts every per-process route of this host with open work
   * and no live poller; releases routes unused for {@link RELEASE_AFTER_SCANS}
   * scans. Errors of one route are logged and retried at the next scan.
   */
  async scan(): Promise<void> {
    const wanted = await this.openRoutes();
    for (const q of wanted) {
      const held = this.adopted.get(q);
      if (held) {
        held.idleScans = 0;
        continue;
      }
      const other = await liveLocalPoller(this.opts.temporal, q);
      if (other) continue;
      try {
        this.adopted.set(q, { stop: await this.opts.serveQueue(q), idleScans: 0 });
        this.opts.log(`zuno worker: serving ${q}: the process that served it is gone and its work is still open`);
      } catch (err) {
        this.opts.log(`zuno worker: could not serve ${q}: ${(err as Error).message}`);
      }
    }
    for (const [q, held] of this.adopted) {
      if (wanted.has(q) || ++held.idleScans < RELEASE_AFTER_SCANS) continue;
      this.adopted.delete(q);
      await held.stop().catch(() => undefined);
      this.opts.log(`zuno worker: stopped serving ${q}: its work has ended`);
    }
  }

  /** Stops every adopted route's worker. */
  async stopAll(): Promise<void> {
    const all = [...this.adopted.values()];
    this.adopted.clear();
    await Promise.all(all.map((h) => h.stop().catch(() => undefined)));
  }

  /** This host's per-process routes of open sessions and Councils whose workflow still runs. */
  private async openRoutes(): Promise<Set<string>> {
    const prefix = `${hostTaskQueue(this.opts.baseQueue, this.opts.host)}/session/`;
    const byQueue = new Map<string, string[]>();
    const add = (queue: string, workflowId: string) => {
      if (!queue.startsWith(prefix)) return;
      byQueue.set(queue, [...(byQueue.get(queue) ?? []), workflowId]);
    };
    for (const status of OPEN_SESSION_STATUSES) {
      const rows: SessionRow[] = await this.opts.store.listSessions({ status, limit: 1000 });
      for (const r of rows) if (r.taskQueue) add(r.taskQueue, r.workflowId);
    }
    // A Council's own activities (its row too) run on its route: a Council whose command died
    // before its first one has no row yet, so running Councils are found in Temporal's visibility.
    for (const runId of await this.runningCouncils())
      add(sessionTaskQueue(this.opts.baseQueue, this.opts.host, runId), councilWorkflowId(runId));
    const open = new Set<string>();
    for (const [queue, workflowIds] of byQueue) {
      for (const id of workflowIds) {
        if (await this.running(id)) {
          open.add(queue);
          break;
        }
      }
    }
    return open;
  }

  /** Run ids of this namespace's running Council workflows (at most 200), from Temporal's visibility. */
  private async runningCouncils(): Promise<string[]> {
    const ids: string[] = [];
    try {
      const query = `${ZunoKind.name}='council' AND ExecutionStatus='Running'`;
      for await (const w of this.opts.temporal.client.workflow.list({ query, pageSize: 200 })) {
        if (w.workflowId.startsWith('council/')) ids.push(w.workflowId.slice('council/'.length));
        if (ids.length >= 200) break;
      }
    } catch {
      // visibility unavailable: the projection's sessions still count
    }
    return ids;
  }

  private async running(workflowId: string): Promise<boolean> {
    try {
      const d = await this.opts.temporal.client.workflow.getHandle(workflowId).describe();
      return d.status.name === 'RUNNING';
    } catch {
      return false;
    }
  }
}
