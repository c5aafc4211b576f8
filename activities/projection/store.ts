import type { EventType } from '../../core/events.js';
import type { Prisma } from '../../prisma/generated/sqlite/client/client.js';
import type { ProjectionDb } from './client.js';
import { ConnectionGate } from './gate.js';
import {
  compareMessages,
  ms,
  optJson,
  optMs,
  toEvent,
  toGoal,
  toInput,
  toMessage,
  toPart,
  toSession,
  toToolCall,
  toApproval,
  toWorkState,
  toWorkUpdate,
} from './rows.js';
import { goalReason } from '../../core/goal/transitions.js';
import { questionColumns, toQuestion } from './question-rows.js';
import { claimHostBinding, readHostBinding } from './host-binding-rows.js';
import { councilColumns, delegationColumns, toCouncil, toDelegation } from './delegation-rows.js';
import { eventParams, toSqlOp } from './sql/ops.js';
import type { SqlRunner, SqlStats } from './sql/runner.js';
import { TOOL_CALL_COLUMNS, type StatementName } from './sql/statements.js';
import type {
  EventRow,
  GoalRow,
  InputRow,
  InputState,
  MessageRow,
  NewEvent,
  PartRow,
  ProjectionStore,
  ProjectionWrite,
  ProjectionWrites,
  SessionRow,
  SessionStatus,
  StepDeletion,
  StepKey,
  ToolCallRow,
  Transcript,
  TranscriptRows,
  WorkStateRow,
  ApprovalRow,
  QuestionRow,
  DelegationRow,
  CouncilRow,
  WorkUpdateRow,
  HostBindingRow,
  HostClaim,
  HostClaimResult,
} from './types.js';

/** Tool-call row fields stored as they are: the columns but the key, the JSON result and the times. */
const TOOL_CALL_FIELDS = TOOL_CALL_COLUMNS.filter(
  (
    c,
  ): c is Exclude<
    (typeof TOOL_CALL_COLUMNS)[number],
    'sessionId' | 'id' | 'resultJson' | 'startedAtMs' | 'endedAtMs'
  > => !['sessionId', 'id', 'resultJson', 'startedAtMs', 'endedAtMs'].includes(c),
) satisfies readonly (keyof ToolCallRow)[];

/** The named fields of a row, copied as they are (the stored column has the row field's name). */
function pick<T extends object, K extends keyof T>(row: T, keys: readonly K[]): Pick<T, K> {
  const out = {} as Pick<T, K>;
  for (const k of keys) out[k] = row[k];
  return out;
}

/** The database row a `to…` mapper of rows.ts takes (a raw hot-path row has the same columns). */
type DbRow<F> = F extends (r: infer R) => unknown ? R : never;

/** Namespace (first key) of the per-session advisory locks taken on PostgreSQL. */
const SESSION_LOCK_NAMESPACE = 0x7a756e6f; // 'zuno'

const DEFAULT_EVENT_PAGE = 500;

/** Interactive transactions wait this long (ms) to start and may run this long (ms). */
const TX_OPTIONS = { maxWait: 10_000, timeout: 30_000 } as const;

/** A Prisma client or an open interactive transaction on it: what the row methods run on. */
type Queries = Prisma.TransactionClient;

/** Takes the per-session PostgreSQL advisory lock for the rest of the transaction `q`. */
async function lockSession(q: Queries, sessionId: string): Promise<void> {
  await q.$executeRaw`SELECT pg_advisory_xact_lock(${SESSION_LOCK_NAMESPACE}::int4, hashtext(${sessionId}))`;
}

/**
 * Row reads and writes on a Prisma client, or inside one transaction (then
 * every statement runs on the transaction's connection). Write semantics:
 * see {@link PrismaProjectionStore}.
 */
class PrismaRows implements ProjectionWrites {
  constructor(
    protected readonly q: Queries,
    readonly backend: 'sqlite' | 'postgresql',
  ) {}

  /** Runs one statement group; the root store overrides it to respect the SQLite connection gate. */
  protected run<T>(fn: () => Promise<T>): Promise<T> {
    return fn();
  }

  upsertSession(s: SessionRow): Promise<void> {
    const data = {
      ...pick(s, [
        'workflowId',
        'workspace',
        'provider',
        'model',
        'status',
        'title',
        'finalText',
        'error',
        'host',
        'taskQueue',
        'agent',
        'parentSessionId',
        'rootSessionId',
        'depth',
      ]),
      updatedAtMs: ms(s.updatedAtMs),
    } satisfies Prisma.SessionUncheckedUpdateInput;
    return this.run(async () => {
      await this.q.session.upsert({
        where: { id: s.id },
        create: { id: s.id, ...data, createdAtMs: ms(s.createdAtMs) },
        update: data,
      });
    });
  }

  /** No-op when the session row does not exist. */
  setSessionStatus(
    sessionId: string,
    status: SessionStatus,
    extra?: { finalText?: string; error?: string; updatedAtMs: number },
  ): Promise<void> {
    return this.run(async () => {
      await this.q.session.updateMany({
        where: { id: sessionId },
        data: {
          status,
          finalText: extra?.finalText,
          // A completed turn clears an earlier turn's error (a pause that was resumed); other ends keep it.
          error: status === 'completed' ? (extra?.error ?? null) : extra?.error,
          updatedAtMs: extra ? ms(extra.updatedAtMs) : undefined,
        },
      });
    });
  }

  getSession(sessionId: string): Promise<SessionRow | null> {
    return this.run(async () => {
      const r = await this.q.session.findUnique({ where: { id: sessionId } });
      return r ? toSession(r) : null;
    });
  }

  getHostBinding(host: string): Promise<HostBindingRow | null> {
    return this.run(() => readHostBinding(this.q, host));
  }

  claimHost(claim: HostClaim, takeOver: boolean): Promise<HostClaimResult> {
    return this.run(() => claimHostBinding(this.q, claim, takeOver));
  }

  listSessions(filter: { workspace?: string; status?: SessionStatus; limit?: number } = {}): Promise<SessionRow[]> {
    const take = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    return this.run(async () => {
      const rows = await this.q.session.findMany({
        where: {
          ...(filter.workspace !== undefined ? { workspace: filter.workspace } : {}),
          ...(filter.status !== undefined ? { status: filter.status } : {}),
        },
        orderBy: [{ updatedAtMs: 'desc' }, { id: 'desc' }],
        take,
      });
      return rows.map(toSession);
    });
  }

  upsertGoal(g: GoalRow): Promise<void> {
    const { snapshot } = g;
    const data = {
      sessionId: g.sessionId,
      workflowId: g.workflowId,
      objective: snapshot.objective,
      status: snapshot.state.status,
      reason: goalReason(snapshot),
      revision: snapshot.revision,
      snapshot: JSON.stringify(snapshot),
      updatedAtMs: ms(snapshot.updatedAtMs),
    } satisfies Prisma.GoalUncheckedUpdateInput;
    return this.run(async () => {
      await this.q.goal.upsert({
        where: { id: g.id },
        create: { id: g.id, ...data, createdAtMs: ms(snapshot.createdAtMs) },
        update: data,
      });
    });
  }

  getGoal(goalId: string): Promise<GoalRow | null> {
    return this.run(async () => {
      const r = await this.q.goal.findUnique({ where: { id: goalId } });
      return r ? toGoal(r) : null;
    });
  }

  goalOfSession(sessionId: string): Promise<GoalRow | null> {
    return this.run(async () => {
      const r = await this.q.goal.findFirst({
        where: { sessionId },
        orderBy: [{ createdAtMs: 'desc' }, { id: 'desc' }],
      });
      return r ? toGoal(r) : null;
    });
  }

  listGoals(filter: { status?: string; limit?: number } = {}): Promise<GoalRow[]> {
    const take = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    return this.run(async () => {
      const rows = await this.q.goal.findMany({
        where: filter.status !== undefined ? { status: filter.status } : {},
        orderBy: [{ updatedAtMs: 'desc' }, { id: 'desc' }],
        take,
      });
      return rows.map(toGoal);
    });
  }

  sessionCursor(sessionId: string): Promise<{ nextTurn: number; nextInputSeq: number }> {
    return this.run(async () => {
      const [last, inputs] = await Promise.all([
        this.q.message.findFirst({ where: { sessionId }, orderBy: { turn: 'desc' }, select: { turn: true } }),
        this.q.input.findMany({ where: { sessionId }, select: { id: true } }),
      ]);
      const seqs = inputs.map((i) => Number(/^in_(\d+)$/.exec(i.id)?.[1] ?? -1));
      return { nextTurn: last ? last.turn + 1 : 0, nextInputSeq: Math.max(-1, ...seqs) + 1 };
    });
  }

  upsertInput(i: InputRow): Promise<void> {
    const data = {
      ...pick(i, ['text', 'clientMessageId', 'admission', 'state']),
      updatedAtMs: ms(i.updatedAtMs),
    } satisfies Prisma.InputUncheckedUpdateInput;
    return this.upsertKeyed('input', i, data, { admittedAtMs: ms(i.admittedAtMs) });
  }

  /** No-op when the input row does not exist. `atMs` becomes updatedAtMs. */
  setInputState(sessionId: string, inputId: string, state: InputState, atMs: number): Promise<void> {
    return this.run(async () => {
      await this.q.input.updateMany({
        where: { sessionId, id: inputId },
        data: { state, updatedAtMs: ms(atMs) },
      });
    });
  }

  /** Inputs in admission order (admittedAtMs, then id). */
  listInputs(sessionId: string): Promise<InputRow[]> {
    return this.run(async () => {
      const rows = await this.q.input.findMany({
        where: { sessionId },
        orderBy: [{ admittedAtMs: 'asc' }, { id: 'asc' }],
      });
      return rows.map(toInput);
    });
  }

  upsertMessage(m: MessageRow): Promise<void> {
    const data = pick(m, ['role', 'turn', 'step', 'inputId']) satisfies Prisma.MessageUncheckedUpdateInput;
    return this.upsertKeyed('message', m, data, { createdAtMs: ms(m.createdAtMs) });
  }

  upsertPart(p: PartRow): Promise<void> {
    const data = {
      ...pick(p, ['messageId', 'turn', 'step', 'position', 'kind', 'text', 'toolCallId']),
      metadataJson: optJson(p.metadata),
    } satisfies Prisma.PartUncheckedUpdateInput;
    return this.upsertKeyed('part', p, data, { createdAtMs: ms(p.createdAtMs) });
  }

  /** Deletes every part and tool-call row with this (turn, step), whichever message they belong to. */
  deleteStep(sessionId: string, turn: number, step: number): Promise<StepDeletion> {
    return this.run(async () => {
      const assistant = await this.q.message.findMany({
        where: { sessionId, turn, step, role: 'assistant' },
        select: { id: true },
      });
      const output = await this.q.part.deleteMany({
        where: { sessionId, turn, step, messageId: { in: assistant.map((m) => m.id) } },
      });
      const other = await this.q.part.deleteMany({ where: { sessionId, turn, step } });
      const calls = await this.q.toolCall.deleteMany({ where: { sessionId, turn, step } });
      return { assistantParts: output.count, otherParts: other.count, toolCalls: calls.count };
    });
  }

  upsertToolCall(t: ToolCallRow): Promise<void> {
    const data = {
      ...pick(t, TOOL_CALL_FIELDS),
      resultJson: optJson(t.result),
      startedAtMs: optMs(t.startedAtMs),
      endedAtMs: optMs(t.endedAtMs),
    } satisfies Prisma.ToolCallUncheckedUpdateInput;
    return this.upsertKeyed('toolCall', t, data);
  }

  /**
   * Upsert of a row keyed by (sessionId, id): `data` is written on insert and
   * on update, `createOnly` (creation times) only on insert. Callers check
   * `data` against the model's Prisma input type (`satisfies`); the
   * delegates' generic signatures are erased here.
   */
  private upsertKeyed(
    model: 'input' | 'message' | 'part' | 'toolCall',
    row: { sessionId: string; id: string },
    data: object,
    createOnly: object = {},
  ): Promise<void> {
    const key = { sessionId: row.sessionId, id: row.id };
    const delegate = this.q[model] as unknown as { upsert(args: object): Promise<unknown> };
    return this.run(async () => {
      await delegate.upsert({ where: { sessionId_id: key }, create: { ...key, ...data, ...createOnly }, update: data });
    });
  }

  getToolCall(sessionId: string, id: string): Promise<ToolCallRow | null> {
    return this.run(async () => {
      const r = await this.q.toolCall.findUnique({ where: { sessionId_id: { sessionId, id } } });
      return r ? toToolCall(r) : null;
    });
  }

  /**
   * Insert-or-ignore by (sessionId, id); returns the stored seq either way.
   * On PostgreSQL this runs inside a transaction (the root store opens one)
   * under the per-session advisory lock, so within a session seq order
   * equals commit order and a reader paging with `listEvents(afterSeq)`
   * never skips an event that commits late with a lower seq. SQLite
   * serializes writers by itself.
   */
  appendEvent(e: NewEvent): Promise<number> {
    const key = { sessionId_id: { sessionId: e.sessionId, id: e.id } };
    const data = {
      sessionId: e.sessionId,
      id: e.id,
      type: e.type,
      dataJson: JSON.stringify(e.data),
      atMs: ms(e.atMs),
    };
    return this.run(async () => {
      if (this.backend === 'postgresql') await lockSession(this.q, e.sessionId);
      const found = await this.q.event.findUnique({ where: key, select: { seq: true } });
      if (found) return found.seq;
      try {
        return (await this.q.event.create({ data, select: { seq: true } })).seq;
      } catch (err) {
        // SQLite: another process appended the same event between our read and insert.
        if ((err as { code?: unknown }).code !== 'P2002' || this.backend === 'postgresql') throw err;
        const again = await this.q.event.findUnique({ where: key, select: { seq: true } });
        if (!again) throw err;
        return again.seq;
      }
    });
  }

  eventsOfType(sessionId: string, type: EventType): Promise<EventRow[]> {
    return this.run(async () => {
      const rows = await this.q.event.findMany({ where: { sessionId, type }, orderBy: { seq: 'asc' } });
      return rows.map(toEvent);
    });
  }

  lastEvent(sessionId: string, type: EventType): Promise<EventRow | null> {
    return this.run(async () => {
      const row = await this.q.event.findFirst({ where: { sessionId, type }, orderBy: { seq: 'desc' } });
      return row ? toEvent(row) : null;
    });
  }

  lastEventSeq(sessionId: string): Promise<number> {
    return this.run(async () => {
      const row = await this.q.event.findFirst({
        where: { sessionId },
        orderBy: { seq: 'desc' },
        select: { seq: true },
      });
      return row?.seq ?? 0;
    });
  }

  /** `limit` defaults to 500; values below 1 are treated as 1. */
  listEvents(sessionId: string, afterSeq: number, limit = DEFAULT_EVENT_PAGE): Promise<EventRow[]> {
    return this.run(async () => {
      const rows = await this.q.event.findMany({
        where: { sessionId, seq: { gt: Math.trunc(afterSeq) } },
        orderBy: { seq: 'asc' },
        take: Math.max(1, Math.trunc(limit)),
      });
      return rows.map(toEvent);
    });
  }

  listEventsAfter(afterSeq: number, limit = DEFAULT_EVENT_PAGE): Promise<EventRow[]> {
    return this.run(async () => {
      const rows = await this.q.event.findMany({
        where: { seq: { gt: Math.trunc(afterSeq) } },
        orderBy: { seq: 'asc' },
        take: Math.max(1, Math.trunc(limit)),
      });
      return rows.map(toEvent);
    });
  }

  lastSeq(): Promise<number> {
    return this.run(async () => {
      const r = await this.q.event.findFirst({ orderBy: { seq: 'desc' }, select: { seq: true } });
      return r?.seq ?? 0;
    });
  }

  getWorkState(sessionId: string): Promise<WorkStateRow | null> {
    return this.run(async () => {
      const r = await this.q.workState.findUnique({ where: { sessionId } });
      return r ? toWorkState(r) : null;
    });
  }

  upsertWorkState(w: WorkStateRow): Promise<void> {
    const data = {
      ...pick(w, ['planRevision', 'planJson', 'todoRevision', 'todoJson']),
      updatedAtMs: ms(w.updatedAtMs),
    } satisfies Prisma.WorkStateUncheckedUpdateInput;
    return this.run(async () => {
      await this.q.workState.upsert({
        where: { sessionId: w.sessionId },
        create: { sessionId: w.sessionId, ...data },
        update: data,
      });
    });
  }

  upsertApproval(a: ApprovalRow): Promise<void> {
    const { sessionId, id, requestedAtMs, decidedAtMs, subjectParts, ...rest } = a;
    const data = {
      ...rest,
      subjectParts: subjectParts === null ? null : JSON.stringify(subjectParts),
      requestedAtMs: ms(requestedAtMs),
      decidedAtMs: decidedAtMs === null ? null : ms(decidedAtMs),
    } satisfies Prisma.ApprovalUncheckedUpdateInput;
    return this.run(async () => {
      await this.q.approval.upsert({
        where: { sessionId_id: { sessionId, id } },
        create: { sessionId, id, ...data },
        update: data,
      });
    });
  }

  getApproval(sessionId: string, id: string): Promise<ApprovalRow | null> {
    return this.run(async () => {
      const r = await this.q.approval.findUnique({ where: { sessionId_id: { sessionId, id } } });
      return r ? toApproval(r) : null;
    });
  }

  listApprovals(
    filter: { sessionId?: string; status?: ApprovalRow['status']; limit?: number } = {},
  ): Promise<ApprovalRow[]> {
    const take = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
    return this.run(async () => {
      const rows = await this.q.approval.findMany({
        where: {
          ...(filter.sessionId !== undefined ? { sessionId: filter.sessionId } : {}),
          ...(filter.status !== undefined ? { status: filter.status } : {}),
        },
        orderBy: [{ requestedAtMs: 'asc' }, { id: 'asc' }],
        take,
      });
      return rows.map(toApproval);
    });
  }

  upsertDelegation(d: DelegationRow): Promise<void> {
    const data = delegationColumns(d) satisfies Prisma.DelegationUncheckedUpdateInput;
    return this.run(async () => {
      await this.q.delegation.upsert({
        where: { parentSessionId_rowId: { parentSessionId: d.parentSessionId, rowId: d.rowId } },
        create: { parentSessionId: d.parentSessionId, rowId: d.rowId, ...data },
        update: data,
      });
    });
  }

  getDelegation(parentSessionId: string, rowId: string): Promise<DelegationRow | null> {
    return this.run(async () => {
      const r = await this.q.delegation.findUnique({ where: { parentSessionId_rowId: { parentSessionId, rowId } } });
      return r ? toDelegation(r) : null;
    });
  }

  getDelegationOfChild(childSessionId: string): Promise<DelegationRow | null> {
    return this.run(async () => {
      const r = await this.q.delegation.findUnique({ where: { childSessionId } });
      return r ? toDelegation(r) : null;
    });
  }

  listDelegations(parentSessionId: string): Promise<DelegationRow[]> {
    return this.run(async () => {
      const rows = await this.q.delegation.findMany({
        where: { parentSessionId },
        orderBy: [{ startedAtMs: 'asc' }, { rowId: 'asc' }],
        take: 1000,
      });
      return rows.map(toDelegation);
    });
  }

  upsertCouncil(c: CouncilRow): Promise<void> {
    const data = councilColumns(c) satisfies Prisma.CouncilUncheckedUpdateInput;
    return this.run(async () => {
      await this.q.council.upsert({ where: { id: c.id }, create: { id: c.id, ...data }, update: data });
    });
  }

  getCouncil(id: string): Promise<CouncilRow | null> {
    return this.run(async () => {
      const r = await this.q.council.findUnique({ where: { id } });
      return r ? toCouncil(r) : null;
    });
  }

  listCouncils(filter: { limit?: number } = {}): Promise<CouncilRow[]> {
    const take = Math.min(Math.max(filter.limit ?? 50, 1), 1000);
    return this.run(async () => {
      const rows = await this.q.council.findMany({ orderBy: [{ updatedAtMs: 'desc' }, { id: 'asc' }], take });
      return rows.map(toCouncil);
    });
  }

  upsertQuestion(q: QuestionRow): Promise<void> {
    const data = questionColumns(q) satisfies Prisma.QuestionUncheckedUpdateInput;
    return this.run(async () => {
      await this.q.question.upsert({
        where: { sessionId_id: { sessionId: q.sessionId, id: q.id } },
        create: { sessionId: q.sessionId, id: q.id, ...data },
        update: data,
      });
    });
  }

  getQuestion(sessionId: string, id: string): Promise<QuestionRow | null> {
    return this.run(async () => {
      const r = await this.q.question.findUnique({ where: { sessionId_id: { sessionId, id } } });
      return r ? toQuestion(r, await this.inputStateOf(sessionId, r.inputId)) : null;
    });
  }

  listQuestions(
    filter: { sessionId?: string; status?: QuestionRow['status']; limit?: number } = {},
  ): Promise<QuestionRow[]> {
    const take = Math.min(Math.max(filter.limit ?? 100, 1), 1000);
    return this.run(async () => {
      const rows = await this.q.question.findMany({
        where: {
          ...(filter.sessionId !== undefined ? { sessionId: filter.sessionId } : {}),
          ...(filter.status !== undefined ? { status: filter.status } : {}),
        },
        orderBy: [{ askedAtMs: 'asc' }, { id: 'asc' }],
        take,
      });
      const out: QuestionRow[] = [];
      for (const r of rows) out.push(toQuestion(r, await this.inputStateOf(r.sessionId, r.inputId)));
      return out;
    });
  }

  /** The SE2 state of one input, null when there is no such input (yet). */
  private async inputStateOf(sessionId: string, inputId: string | null): Promise<InputState | null> {
    if (inputId === null) return null;
    const i = await this.q.input.findUnique({
      where: { sessionId_id: { sessionId, id: inputId } },
      select: { state: true },
    });
    return (i?.state as InputState | undefined) ?? null;
  }

  getWorkUpdate(sessionId: string, id: string): Promise<WorkUpdateRow | null> {
    return this.run(async () => {
      const r = await this.q.workUpdate.findUnique({ where: { sessionId_id: { sessionId, id } } });
      return r ? toWorkUpdate(r) : null;
    });
  }

  /** An upsert whose update changes nothing: the first record stands. */
  recordWorkUpdate(u: WorkUpdateRow): Promise<void> {
    const row = {
      sessionId: u.sessionId,
      id: u.id,
      tool: u.tool,
      resultJson: JSON.stringify(u.result),
      atMs: ms(u.atMs),
    };
    return this.run(async () => {
      await this.q.workUpdate.upsert({
        where: { sessionId_id: { sessionId: u.sessionId, id: u.id } },
        create: row,
        update: {},
      });
    });
  }

  /**
   * Null when the session row does not exist. Inputs in admission order;
   * messages by (turn, step, user before assistant, createdAtMs, id); parts
   * and tool calls by (turn, step, position).
   */
  loadTranscript(sessionId: string): Promise<Transcript | null> {
    const byPosition = [{ turn: 'asc' }, { step: 'asc' }, { position: 'asc' }, { id: 'asc' }] as const;
    return this.run(async () => {
      const r = await this.q.session.findUnique({ where: { id: sessionId } });
      if (!r) return null;
      const [inputs, messages, parts, toolCalls] = await Promise.all([
        this.q.input.findMany({ where: { sessionId }, orderBy: [{ admittedAtMs: 'asc' }, { id: 'asc' }] }),
        this.q.message.findMany({ where: { sessionId } }),
        this.q.part.findMany({ where: { sessionId }, orderBy: [...byPosition] }),
        this.q.toolCall.findMany({ where: { sessionId }, orderBy: [...byPosition] }),
      ]);
      return {
        session: toSession(r),
        inputs: inputs.map(toInput),
        messages: messages.map(toMessage).sort(compareMessages),
        parts: parts.map(toPart),
        toolCalls: toolCalls.map(toToolCall),
      };
    });
  }
}

/**
 * The ProjectionStore on a Prisma client (either backend). Built by
 * openProjectionStore after migrations ran; not constructed directly.
 *
 * Write semantics (all idempotent): upserts are native
 * `INSERT … ON CONFLICT DO UPDATE` statements keyed by the row's id; on
 * update a field left `undefined` keeps its stored value and `null` clears
 * it; creation times (`createdAtMs`, `admittedAtMs`) are set on insert only.
 * Errors are Prisma's (`PrismaClientKnownRequestError` etc.), unchanged.
 *
 * The hot path (ProjectionHotPath, issue 13) bypasses Prisma: prepared
 * statements run by `runner` on the same SQLite connection or pg pool, and
 * so do plain event appends and `lastEvent` outside a transaction.
 */
export class PrismaProjectionStore extends PrismaRows implements ProjectionStore {
  /**
   * @param hot the hot path's runner (sql/sqlite-runner.ts, sql/pg-runner.ts).
   * @param stats the counters the runner (and, on SQLite, the connection) update.
   * @param gate SQLite only: keeps plain statements out of an open transaction
   *   (one connection per process); the SQLite runner shares it.
   */
  constructor(
    private readonly db: ProjectionDb,
    backend: 'sqlite' | 'postgresql',
    private readonly hot: SqlRunner,
    private readonly stats: SqlStats,
    private readonly gate?: ConnectionGate,
  ) {
    super(db, backend);
  }

  protected override run<T>(fn: () => Promise<T>): Promise<T> {
    return this.gate ? this.gate.shared(fn) : fn();
  }

  /**
   * All-or-nothing writes of one session (see ProjectionStore.transaction).
   * PostgreSQL: an interactive transaction holding the session's advisory
   * lock, so two transactions of one session run one after the other and
   * event seqs follow commit order. SQLite: an interactive transaction that
   * takes the database write lock with its first statement (another process
   * waits up to the busy timeout; no reader snapshot can go stale), with
   * this process's other statements held back until it ends.
   */
  transaction<T>(sessionId: string, fn: (tx: ProjectionWrites) => Promise<T>): Promise<T> {
    if (!this.gate) {
      return this.db.$transaction(async (q) => {
        await lockSession(q, sessionId);
        return fn(new PrismaRows(q, this.backend));
      }, TX_OPTIONS);
    }
    return this.gate.exclusive(() =>
      this.db.$transaction(async (q) => {
        await q.$executeRaw`UPDATE "sessions" SET "id" = "id" WHERE 0`;
        return fn(new PrismaRows(q, this.backend));
      }, TX_OPTIONS),
    );
  }

  /** One transaction: the step's parts and tool-call rows go together. */
  override deleteStep(sessionId: string, turn: number, step: number): Promise<StepDeletion> {
    return this.transaction(sessionId, (tx) => tx.deleteStep(sessionId, turn, step));
  }

  /** Insert-if-absent with one prepared statement (on PostgreSQL in a transaction holding the session's lock). */
  override appendEvent(e: NewEvent): Promise<number> {
    return this.hot.appendEvent(e.sessionId, eventParams(e));
  }

  override async lastEvent(sessionId: string, type: EventType): Promise<EventRow | null> {
    const [row] = await this.hot.read<DbRow<typeof toEvent>>('lastEventOfType', [sessionId, type]);
    return row ? toEvent(row) : null;
  }

  /** One prepared statement (the work-state segment of every model request reads it). */
  override async getWorkState(sessionId: string): Promise<WorkStateRow | null> {
    const [row] = await this.hot.read<DbRow<typeof toWorkState>>('workState', [sessionId]);
    return row ? toWorkState(row) : null;
  }

  writeBatch(sessionId: string, writes: readonly ProjectionWrite[]): Promise<boolean> {
    return this.hot.batch(sessionId, writes.map(toSqlOp));
  }

  async partsThrough(sessionId: string, through: StepKey): Promise<number> {
    const [row] = await this.hot.read<{ n: number | string }>('partsThroughCount', [
      sessionId,
      through.turn,
      through.turn,
      through.step,
    ]);
    return Number(row?.n ?? 0);
  }

  async transcriptAfter(sessionId: string, after: StepKey | null): Promise<TranscriptRows> {
    // (-1, 0): every step (turns count from 0).
    const key = [sessionId, after?.turn ?? -1, after?.turn ?? -1, after?.step ?? 0];
    const rows = <T>(stmt: StatementName) => this.hot.read<T>(stmt, key);
    const messages = await rows<DbRow<typeof toMessage>>('messagesAfter');
    const parts = await rows<DbRow<typeof toPart>>('partsAfter');
    const toolCalls = await rows<DbRow<typeof toToolCall>>('toolCallsAfter');
    return { messages: messages.map(toMessage), parts: parts.map(toPart), toolCalls: toolCalls.map(toToolCall) };
  }

  async stepParts(sessionId: string, at: StepKey): Promise<PartRow[]> {
    const rows = await this.hot.read<DbRow<typeof toPart>>('stepParts', [sessionId, at.turn, at.step]);
    return rows.map(toPart);
  }

  async okToolCalls(sessionId: string): Promise<ToolCallRow[]> {
    const rows = await this.hot.read<DbRow<typeof toToolCall>>('okToolCalls', [sessionId]);
    return rows.map(toToolCall);
  }

  sqlStats(): SqlStats {
    return { ...this.stats };
  }

  async close(): Promise<void> {
    await this.db.$disconnect();
  }
}
