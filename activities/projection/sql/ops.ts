/**
 * Rows to hot-path statements (issue 13 item 2): what a {@link ProjectionWrite}
 * becomes in a batch — its statement and its parameters in the statement's
 * column order. Pure.
 */
import type { InputRow, NewEvent, PartRow, ProjectionWrite, ToolCallRow } from '../types.js';
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
    case 'toolCall':
      return {
        stmt: TOOL_CALL_STATEMENT[w.mode],
        params: toolCallParams(w.row),
        ...(w.mode === 'complete' ? { mustChange: true } : {}),
      };
    case 'part':
      return { stmt: 'part', params: partParams(w.row) };
    case 'message': {
      const m = w.row;
      return {
        stmt: 'message',
        params: [m.sessionId, m.id, m.role, m.turn, m.step, m.inputId ?? null, int(m.createdAtMs)],
      };
    }
    case 'input':
      return { stmt: 'input', params: inputParams(w.row) };
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
        params: [w.status, w.finalText ?? null, w.status, w.error ?? null, w.error ?? null, int(w.atMs), w.sessionId],
      };
    case 'inputState':
      return { stmt: 'inputState', params: [w.state, int(w.atMs), w.sessionId, w.inputId] };
  }
}

/** A tool-call row's parameters in the tool-call statements' column order. */
function toolCallParams(r: ToolCallRow): SqlValue[] {
  return [
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
}

/** A part row's parameters in the `part` statement's column order. */
function partParams(p: PartRow): SqlValue[] {
  return [
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
  ];
}

/** An input row's parameters in the `input` statement's column order. */
function inputParams(i: InputRow): SqlValue[] {
  return [
    i.sessionId,
    i.id,
    i.text,
    i.clientMessageId ?? null,
    i.admission,
    i.state,
    int(i.admittedAtMs),
    int(i.updatedAtMs),
  ];
}

/** An event's parameters in statements.ts EVENT_COLUMNS order. */
export function eventParams(e: NewEvent): SqlValue[] {
  return [e.sessionId, e.id, e.type, JSON.stringify(e.data), int(e.atMs)];
}
