/**
 * Rows to hot-path statements (issue 13 item 2): what a {@link ProjectionWrite}
 * becomes in a batch — its statement and its parameters in the statement's
 * column order. Pure.
 */
import type { NewEvent, ProjectionWrite } from '../types.js';
import type { SqlOp, SqlValue } from './runner.js';
import { SESSION_TURN_COLUMNS, type StatementName } from './statements.js';

const TOOL_CALL_STATEMENT = {
  plan: 'toolCallPlan',
  running: 'toolCallRunning',
  complete: 'toolCallComplete',
} as const satisfies Record<string, StatementName>;

const json = (v: Record<string, unknown> | null | undefined): string | null => (v == null ? null : JSON.stringify(v));
const int = (n: number | null | undefined): number | null => (n == null ? null : Math.trunc(n));

/** The statement and parameters of one write. */
export function toSqlOp(w: ProjectionWrite): SqlOp {
  switch (w.kind) {
    case 'toolCall': {
      const r = w.row;
      const params: SqlValue[] = [
        r.sessionId,
        r.id,
        r.turn,
        r.step,
        r.position,
        r.callId,
        r.tool,
        r.argsJson,
        r.status,
        r.outcome ?? null,
        r.blockedCategory ?? null,
        r.output ?? null,
        r.errorCode ?? null,
        json(r.result),
        r.attempts ?? null,
        int(r.startedAtMs),
        int(r.endedAtMs),
      ];
      return { stmt: TOOL_CALL_STATEMENT[w.mode], params, ...(w.mode === 'complete' ? { mustChange: true } : {}) };
    }
    case 'part': {
      const p = w.row;
      return {
        stmt: 'part',
        params: [
          p.sessionId,
          p.id,
          p.messageId,
          p.turn,
          p.step,
          p.position,
          p.kind,
          p.text ?? null,
          p.toolCallId ?? null,
          json(p.metadata),
          int(p.createdAtMs),
        ],
      };
    }
    case 'message': {
      const m = w.row;
      return {
        stmt: 'message',
        params: [m.sessionId, m.id, m.role, m.turn, m.step, m.inputId ?? null, int(m.createdAtMs)],
      };
    }
    case 'input': {
      const i = w.row;
      return {
        stmt: 'input',
        params: [
          i.sessionId,
          i.id,
          i.text,
          i.clientMessageId ?? null,
          i.admission,
          i.state,
          int(i.admittedAtMs),
          int(i.updatedAtMs),
        ],
      };
    }
    case 'event':
      return { stmt: 'event', params: eventParams(w.event) };
    case 'sessionTurn': {
      const r = w.row;
      return {
        stmt: 'sessionTurn',
        params: SESSION_TURN_COLUMNS.map((c) => {
          const v = r[c];
          return typeof v === 'number' ? Math.trunc(v) : (v ?? null);
        }),
      };
    }
    case 'sessionStatus':
      return {
        stmt: 'sessionStatus',
        params: [w.status, w.finalText ?? null, w.error ?? null, int(w.atMs), w.sessionId],
      };
    case 'inputState':
      return { stmt: 'inputState', params: [w.state, int(w.atMs), w.sessionId, w.inputId] };
  }
}

/** An event's parameters in statements.ts EVENT_COLUMNS order. */
export function eventParams(e: NewEvent): SqlValue[] {
  return [e.sessionId, e.id, e.type, JSON.stringify(e.data), int(e.atMs)];
}
