/**
 * The one pump of an ACP session on one connection (SF1, SF10): it tails
 * the session's stored events, sends each event's `session/update`s once,
 * in order, and settles the prompts that wait for their turn's end — a
 * prompt's response comes only after its linked turn-end event and every
 * update before it were sent, so an early `end_turn` never clears the
 * client's busy state. Between polls it sends Plan changes (GP29), asks
 * pending approvals and questions (permission-bridge.ts) and keeps this
 * host's worker service up. Several prompts may wait at once (a second
 * prompt while one runs is admitted and queued by the session's inbox;
 * each answers at the end of its own turn). Stopping the pump (a closed
 * connection) withdraws nothing: the work goes on (SF9).
 */
import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk';
import type { EventRow } from '../../activities/projection/index.js';
import { TURN_END_EVENTS } from '../../core/events.js';
import { describeSessionRun } from '../session-start.js';
import {
  type AdmittedPrompt,
  endedEarlier,
  endOf,
  endsPrompt,
  type PromptEnd,
  type SurfaceHost,
  tailEvents,
} from '../surface/index.js';
import { EventMapper } from './event-updates.js';
import { PermissionBridge } from './permission-bridge.js';
import { PlanProjector } from './plan-projection.js';

/** How often, with prompts waiting and no new event, the pump asks Temporal whether the session's run is still open, in ms. */
export const CLOSED_CHECK_MS = 1_000;

interface Waiter {
  resolve: (end: PromptEnd) => void;
  reject: (err: unknown) => void;
}

/** One session of a connection: its id and workspace (absolute). */
export interface PumpedSession {
  sessionId: string;
  workspace: string;
}

/** Streams one session's events to one ACP client and answers its waiting prompts. */
export class SessionPump {
  private after: number;
  private readonly waiters = new Map<string, Waiter[]>();
  private readonly ctl = new AbortController();
  private readonly mapper: EventMapper;
  private readonly plan: PlanProjector;
  private readonly bridge: PermissionBridge;
  private checkedMs = Date.now();
  private done: Promise<void> | null = null;
  private failure: unknown = null;

  /**
   * @param after the seq after which events are still to be sent (0: all;
   *   after a `session/load` replay, the last replayed seq).
   * @param mapper the mapper the replay used (it knows which calls were announced).
   */
  constructor(
    private readonly host: SurfaceHost,
    private readonly client: AgentContext,
    private readonly session: PumpedSession,
    after: number,
    mapper?: EventMapper,
  ) {
    this.after = after;
    this.mapper = mapper ?? new EventMapper(host.store, session.sessionId, session.workspace);
    this.plan = new PlanProjector(host.store, session.sessionId);
    this.bridge = new PermissionBridge(host, client, session.sessionId);
  }

  /** The last seq sent. */
  get position(): number {
    return this.after;
  }

  /** Prompts of this connection still waiting for their turn's end. */
  get waiting(): number {
    let n = 0;
    for (const w of this.waiters.values()) n += w.length;
    return n;
  }

  /** true once the pump stopped (closed, or its store failed): a new prompt needs a new pump. */
  get stopped(): boolean {
    return this.ctl.signal.aborted;
  }

  /** Starts the pump (once). */
  start(): void {
    this.done ??= this.loop();
  }

  /**
   * The end of `admitted`'s turn, once it and every update before it were
   * sent; at once when that end was already sent (a resent prompt). When
   * the session's run closes without carrying the input: `cancelled`.
   * @throws (rejects) when the pump stops first: the connection closed, or the store failed.
   */
  async waitFor(admitted: AdmittedPrompt): Promise<PromptEnd> {
    const inputId = admitted.receipt.inputId;
    const ended = new Promise<PromptEnd>((resolve, reject) => {
      const list = this.waiters.get(inputId) ?? [];
      list.push({ resolve, reject });
      this.waiters.set(inputId, list);
    });
    if (this.stopped) this.settleAll(this.failure ?? new Error('the connection closed'));
    const done = await endedEarlier(this.host, this.session.sessionId, inputId);
    if (done && done.seq <= this.after) this.settle(inputId, endOf(done));
    return ended;
  }

  /** Stops the pump and the bridge; waiting prompts are rejected with `reason`. The session's work goes on. */
  stop(reason: unknown = new Error('the connection closed')): Promise<void> {
    if (!this.ctl.signal.aborted) this.ctl.abort();
    this.bridge.close();
    this.settleAll(reason);
    return this.done ?? Promise.resolve();
  }

  private async loop(): Promise<void> {
    try {
      const events = tailEvents(this.host.store, {
        after: this.after,
        sessionId: this.session.sessionId,
        signal: this.ctl.signal,
        idle: () => this.idle(),
      });
      for await (const e of events) await this.deliver(e);
    } catch (err) {
      if (this.ctl.signal.aborted) return;
      this.failure = err;
      this.host.notify?.(`session ${this.session.sessionId}: stopped streaming: ${(err as Error).message}`);
      this.ctl.abort();
      this.bridge.close();
      this.settleAll(err);
    }
  }

  /**
   * Sends one event's updates; at a turn's end, the Plan as that turn left
   * it too, then settles the prompts the turn answered (nothing of the turn
   * comes after its answer).
   */
  private async deliver(e: EventRow): Promise<void> {
    for (const u of await this.mapper.map(e)) await this.send(u);
    this.after = e.seq;
    if (!TURN_END_EVENTS.has(e.type)) return;
    const plan = await this.plan.next();
    if (plan) await this.send(plan);
    for (const inputId of [...this.waiters.keys()]) if (endsPrompt(e, inputId)) this.settle(inputId, endOf(e));
  }

  private async send(update: SessionUpdate): Promise<void> {
    await this.client.notify('session/update', { sessionId: this.session.sessionId, update });
  }

  /** Between polls: the worker guard, Plan changes, approvals and questions, a closed run. Failures are noted, not fatal. */
  private async idle(): Promise<void> {
    try {
      await this.host.guardWorker();
      const plan = await this.plan.next();
      if (plan) await this.send(plan);
      await this.bridge.poll();
      await this.closedRun();
    } catch (err) {
      if (!this.ctl.signal.aborted) this.host.notify?.(`session ${this.session.sessionId}: ${(err as Error).message}`);
    }
  }

  /** Waiting prompts of a run that closed without carrying their input end `cancelled` (or at an end stored earlier). */
  private async closedRun(): Promise<void> {
    if (this.waiters.size === 0 || Date.now() - this.checkedMs < CLOSED_CHECK_MS) return;
    this.checkedMs = Date.now();
    const { sessionId } = this.session;
    const run = await describeSessionRun(this.host.temporal.client, sessionId);
    if (run?.status === 'RUNNING' || (await this.host.store.lastEventSeq(sessionId)) > this.after) return;
    for (const inputId of [...this.waiters.keys()]) {
      const done = await endedEarlier(this.host, sessionId, inputId);
      this.settle(inputId, done ? endOf(done) : { status: 'cancelled', text: null, error: null, event: null });
    }
  }

  private settle(inputId: string, end: PromptEnd): void {
    const list = this.waiters.get(inputId) ?? [];
    this.waiters.delete(inputId);
    for (const w of list) w.resolve(end);
  }

  private settleAll(reason: unknown): void {
    const all = [...this.waiters.values()].flat();
    this.waiters.clear();
    for (const w of all) w.reject(reason);
  }
}
