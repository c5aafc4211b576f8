import type { ProjectionDb } from './client.js';
import {
  compareMessages,
  ms,
  optJson,
  optMs,
  toEvent,
  toInput,
  toMessage,
  toPart,
  toSession,
  toToolCall,
} from './rows.js';
import type {
  EventRow,
  InputRow,
  InputState,
  MessageRow,
  NewEvent,
  PartRow,
  ProjectionStore,
  SessionRow,
  SessionStatus,
  ToolCallRow,
  Transcript,
} from './types.js';

/** Namespace (first key) of the per-session advisory locks taken by appendEvent on PostgreSQL. */
const EVENT_LOCK_NAMESPACE = 0x7a756e6f; // 'zuno'

const DEFAULT_EVENT_PAGE = 500;

/**
 * The ProjectionStore on a Prisma client (either backend). Built by
 * openProjectionStore after migrations ran; not constructed directly.
 *
 * Write semantics (all idempotent): upserts are native
 * `INSERT … ON CONFLICT DO UPDATE` statements keyed by the row's id; on
 * update a field left `undefined` keeps its stored value and `null` clears
 * it; creation times (`createdAtMs`, `admittedAtMs`) are set on insert only.
 * Errors are Prisma's (`PrismaClientKnownRequestError` etc.), unchanged.
 */
export class PrismaProjectionStore implements ProjectionStore {
  constructor(
    private readonly db: ProjectionDb,
    readonly backend: 'sqlite' | 'postgresql',
  ) {}

  async upsertSession(s: SessionRow): Promise<void> {
    const data = {
      workflowId: s.workflowId,
      workspace: s.workspace,
      provider: s.provider,
      model: s.model,
      status: s.status,
      title: s.title,
      finalText: s.finalText,
      error: s.error,
      updatedAtMs: ms(s.updatedAtMs),
    };
    await this.db.session.upsert({
      where: { id: s.id },
      create: { id: s.id, ...data, createdAtMs: ms(s.createdAtMs) },
      update: data,
    });
  }

  /** No-op when the session row does not exist. */
  async setSessionStatus(
    sessionId: string,
    status: SessionStatus,
    extra?: { finalText?: string; error?: string; updatedAtMs: number },
  ): Promise<void> {
    await this.db.session.updateMany({
      where: { id: sessionId },
      data: {
        status,
        finalText: extra?.finalText,
        error: extra?.error,
        updatedAtMs: extra ? ms(extra.updatedAtMs) : undefined,
      },
    });
  }

  async getSession(sessionId: string): Promise<SessionRow | null> {
    const r = await this.db.session.findUnique({ where: { id: sessionId } });
    return r ? toSession(r) : null;
  }

  async upsertInput(i: InputRow): Promise<void> {
    const data = {
      text: i.text,
      clientMessageId: i.clientMessageId,
      admission: i.admission,
      state: i.state,
      updatedAtMs: ms(i.updatedAtMs),
    };
    await this.db.input.upsert({
      where: { sessionId_id: { sessionId: i.sessionId, id: i.id } },
      create: { sessionId: i.sessionId, id: i.id, ...data, admittedAtMs: ms(i.admittedAtMs) },
      update: data,
    });
  }

  /** No-op when the input row does not exist. `atMs` becomes updatedAtMs. */
  async setInputState(sessionId: string, inputId: string, state: InputState, atMs: number): Promise<void> {
    await this.db.input.updateMany({
      where: { sessionId, id: inputId },
      data: { state, updatedAtMs: ms(atMs) },
    });
  }

  /** Inputs in admission order (admittedAtMs, then id). */
  async listInputs(sessionId: string): Promise<InputRow[]> {
    const rows = await this.db.input.findMany({
      where: { sessionId },
      orderBy: [{ admittedAtMs: 'asc' }, { id: 'asc' }],
    });
    return rows.map(toInput);
  }

  async upsertMessage(m: MessageRow): Promise<void> {
    const data = { role: m.role, turn: m.turn, step: m.step, inputId: m.inputId };
    await this.db.message.upsert({
      where: { sessionId_id: { sessionId: m.sessionId, id: m.id } },
      create: { sessionId: m.sessionId, id: m.id, ...data, createdAtMs: ms(m.createdAtMs) },
      update: data,
    });
  }

  async upsertPart(p: PartRow): Promise<void> {
    const data = {
      messageId: p.messageId,
      turn: p.turn,
      step: p.step,
      position: p.position,
      kind: p.kind,
      text: p.text,
      toolCallId: p.toolCallId,
      metadataJson: optJson(p.metadata),
    };
    await this.db.part.upsert({
      where: { sessionId_id: { sessionId: p.sessionId, id: p.id } },
      create: { sessionId: p.sessionId, id: p.id, ...data, createdAtMs: ms(p.createdAtMs) },
      update: data,
    });
  }

  /** Deletes every part and tool-call row with this (turn, step), whichever message they belong to; one transaction. */
  async deleteStep(sessionId: string, turn: number, step: number): Promise<void> {
    await this.db.$transaction([
      this.db.part.deleteMany({ where: { sessionId, turn, step } }),
      this.db.toolCall.deleteMany({ where: { sessionId, turn, step } }),
    ]);
  }

  async upsertToolCall(t: ToolCallRow): Promise<void> {
    const data = {
      turn: t.turn,
      step: t.step,
      position: t.position,
      callId: t.callId,
      tool: t.tool,
      argsJson: t.argsJson,
      status: t.status,
      outcome: t.outcome,
      blockedCategory: t.blockedCategory,
      output: t.output,
      errorCode: t.errorCode,
      resultJson: optJson(t.result),
      attempts: t.attempts,
      startedAtMs: optMs(t.startedAtMs),
      endedAtMs: optMs(t.endedAtMs),
    };
    await this.db.toolCall.upsert({
      where: { sessionId_id: { sessionId: t.sessionId, id: t.id } },
      create: { sessionId: t.sessionId, id: t.id, ...data },
      update: data,
    });
  }

  async getToolCall(sessionId: string, id: string): Promise<ToolCallRow | null> {
    const r = await this.db.toolCall.findUnique({ where: { sessionId_id: { sessionId, id } } });
    return r ? toToolCall(r) : null;
  }

  /**
   * Insert-or-ignore by (sessionId, id); returns the stored seq either way.
   * On PostgreSQL the insert runs under a per-session advisory transaction
   * lock, so within a session seq order equals commit order and a reader
   * paging with `listEvents(afterSeq)` never skips an event that commits
   * late with a lower seq. SQLite serializes writers by itself.
   */
  async appendEvent(e: NewEvent): Promise<number> {
    const key = { sessionId_id: { sessionId: e.sessionId, id: e.id } };
    const data = {
      sessionId: e.sessionId,
      id: e.id,
      type: e.type,
      dataJson: JSON.stringify(e.data),
      atMs: ms(e.atMs),
    };
    if (this.backend === 'postgresql') {
      return this.db.$transaction(
        async (tx) => {
          await tx.$executeRaw`SELECT pg_advisory_xact_lock(${EVENT_LOCK_NAMESPACE}::int4, hashtext(${e.sessionId}))`;
          const found = await tx.event.findUnique({ where: key, select: { seq: true } });
          if (found) return found.seq;
          return (await tx.event.create({ data, select: { seq: true } })).seq;
        },
        { maxWait: 10_000, timeout: 30_000 },
      );
    }
    const found = await this.db.event.findUnique({ where: key, select: { seq: true } });
    if (found) return found.seq;
    try {
      return (await this.db.event.create({ data, select: { seq: true } })).seq;
    } catch (err) {
      // Another process appended the same event between our read and insert.
      if ((err as { code?: unknown }).code !== 'P2002') throw err;
      const again = await this.db.event.findUnique({ where: key, select: { seq: true } });
      if (!again) throw err;
      return again.seq;
    }
  }

  /** `limit` defaults to 500; values below 1 are treated as 1. */
  async eventsOfType(sessionId: string, type: string): Promise<EventRow[]> {
    const rows = await this.db.event.findMany({ where: { sessionId, type }, orderBy: { seq: 'asc' } });
    return rows.map(toEvent);
  }

  async lastEvent(sessionId: string, type: string): Promise<EventRow | null> {
    const row = await this.db.event.findFirst({ where: { sessionId, type }, orderBy: { seq: 'desc' } });
    return row ? toEvent(row) : null;
  }

  async listEvents(sessionId: string, afterSeq: number, limit = DEFAULT_EVENT_PAGE): Promise<EventRow[]> {
    const rows = await this.db.event.findMany({
      where: { sessionId, seq: { gt: Math.trunc(afterSeq) } },
      orderBy: { seq: 'asc' },
      take: Math.max(1, Math.trunc(limit)),
    });
    return rows.map(toEvent);
  }

  /**
   * Null when the session row does not exist. Inputs in admission order;
   * messages by (turn, step, user before assistant, createdAtMs, id); parts
   * and tool calls by (turn, step, position).
   */
  async loadTranscript(sessionId: string): Promise<Transcript | null> {
    const session = await this.getSession(sessionId);
    if (!session) return null;
    const byPosition = [{ turn: 'asc' }, { step: 'asc' }, { position: 'asc' }, { id: 'asc' }] as const;
    const [inputs, messages, parts, toolCalls] = await Promise.all([
      this.listInputs(sessionId),
      this.db.message.findMany({ where: { sessionId } }),
      this.db.part.findMany({ where: { sessionId }, orderBy: [...byPosition] }),
      this.db.toolCall.findMany({ where: { sessionId }, orderBy: [...byPosition] }),
    ]);
    return {
      session,
      inputs,
      messages: messages.map(toMessage).sort(compareMessages),
      parts: parts.map(toPart),
      toolCalls: toolCalls.map(toToolCall),
    };
  }

  async close(): Promise<void> {
    await this.db.$disconnect();
  }
}
