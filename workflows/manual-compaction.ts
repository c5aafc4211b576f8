/**
 * A person's compaction (issue 28 item 4, CP7: works whatever
 * `compaction.auto` says): the `compact` Update waits until no turn runs,
 * keeps the session from starting one meanwhile, runs `compactSession` on
 * the session's route and answers with the published summary's facts.
 * Requests are served one at a time. Deterministic.
 */
import { condition, proxyActivities, setCurrentDetails, uuid4 } from '@temporalio/workflow';
import { modelStepOptions } from '../core/activity-policy.js';
import { MAX_RECOVERIES_PER_DRIVE } from '../core/compaction/contract.js';
import type { SessionActivities } from '../core/session/activities.js';
import type { CompactReceipt, CompactRequest } from '../core/session/updates.js';
import { onRoute, type RouteHost } from './route.js';
import { statusLine } from './status-line.js';
import { compactInput } from './turn-compaction.js';

/** What a manual compaction needs from the session. */
export interface ManualCompactionHost extends RouteHost {
  /** The next turn's number (the compaction covers every step before it). */
  readonly turn: number;
  /** A turn is running now. */
  turnRunning(): boolean;
  /** Reads the compaction generation (its `patched()` marker is recorded here). */
  compactionAllowed(): boolean;
  /** Puts the session's own current details back once the compaction is over. */
  restoreDetails(): void;
}

/** The session's manual compactions (see the module comment). */
export class ManualCompaction {
  private waiting = 0;
  private running = false;

  constructor(private readonly host: ManualCompactionHost) {}

  /** A manual compaction is asked for or running: the session starts no turn until it is over. */
  get busy(): boolean {
    return this.waiting > 0 || this.running;
  }

  /**
   * The `compact` Update: waits for the running turn (if any) and for an
   * earlier manual compaction, then compacts.
   * @throws the activity's failure (e.g. `compaction_failed`: nothing to compact).
   */
  async compact(req: CompactRequest | undefined): Promise<CompactReceipt> {
    void req;
    const waitedForTurn = this.host.turnRunning();
    this.waiting += 1;
    try {
      await condition(() => !this.host.turnRunning() && !this.running);
    } finally {
      this.waiting -= 1;
    }
    this.running = true;
    try {
      this.host.compactionAllowed();
      const { meta, turn } = this.host;
      const input = compactInput(meta, { at: { turn, step: 0 }, uid: uuid4() }, 'manual', 0);
      setCurrentDetails(statusLine.compacting(turn, 0, MAX_RECOVERIES_PER_DRIVE, Date.now()));
      const options = modelStepOptions(meta.provider.retry, meta.activityDefaults, 'compacting (asked by a person)');
      const r = await onRoute(this.host, (o) =>
        proxyActivities<SessionActivities>({ ...options, ...o }).compactSession(input),
      );
      return {
        sessionId: meta.sessionId,
        compactionId: r.compactionId,
        boundary: r.boundary,
        beforeTokens: r.beforeTokens,
        afterTokens: r.afterTokens,
        summaryHash: r.summaryHash,
        estimator: r.estimator,
        waitedForTurn,
      };
    } finally {
      this.running = false;
      this.host.restoreDetails();
    }
  }
}
