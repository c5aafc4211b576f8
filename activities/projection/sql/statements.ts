/**
 * The projection's hot-path SQL (issue 13 item 2): the statements a tool
 * call and a model step run, written once as text for both backends and
 * prepared once per connection. Every write is an insert-if-absent or a
 * conditional upsert keyed by the row's deterministic id — never a read
 * before a write — so an activity that runs twice leaves each record once.
 *
 * Tables and columns are the Prisma models' (prisma/models.prisma); the
 * column lists here must name the same columns. Pure: no I/O.
 */

/** Which SQL dialect a statement is rendered for. */
export type Dialect = 'sqlite' | 'postgresql';

/** A statement as data: its stable name (the prepared-statement key) and its text per dialect. */
export interface Statement {
  name: string;
  /** Renders the text; `table(name)` qualifies a table (PostgreSQL: with the schema). */
  text(dialect: Dialect, table: (name: string) => string): string;
  /** true for a statement that returns rows. */
  reader: boolean;
}

const q = (c: string) => `"${c}"`;

/** `?` on SQLite, `$n` on PostgreSQL (1-based). */
function placeholders(dialect: Dialect, n: number, from = 1): string[] {
  return Array.from({ length: n }, (_, i) => (dialect === 'sqlite' ? '?' : `$${from + i}`));
}

/**
 * An upsert of `columns` keyed by (sessionId, id): on conflict the
 * `update` columns take the new values; `onlyWhere` (a condition on the
 * stored row) makes the update conditional — a row it excludes keeps its
 * values and the statement changes nothing. Parameters are `columns` in order.
 */
function upsert(
  name: string,
  tableName: string,
  columns: readonly string[],
  update: readonly string[],
  onlyWhere?: (table: string) => string,
): Statement {
  return {
    name,
    reader: false,
    text: (dialect, table) => {
      const t = table(tableName);
      const set = update.map((c) => `${q(c)} = excluded.${q(c)}`).join(', ');
      // The stored row is named by the bare table name (a schema-qualified name is not a range variable).
      const where = onlyWhere ? ` WHERE ${onlyWhere(q(tableName))}` : '';
      return (
        `INSERT INTO ${t} (${columns.map(q).join(', ')}) VALUES (${placeholders(dialect, columns.length).join(', ')}) ` +
        `ON CONFLICT ("sessionId", "id") DO UPDATE SET ${set}${where}`
      );
    },
  };
}

/** Columns of a tool-call row, in parameter order. */
export const TOOL_CALL_COLUMNS = [
  'sessionId',
  'id',
  'turn',
  'step',
  'position',
  'callId',
  'tool',
  'argsJson',
  'status',
  'outcome',
  'blockedCategory',
  'output',
  'errorCode',
  'resultJson',
  'attempts',
  'startedAtMs',
  'endedAtMs',
] as const;

const IDENTITY = ['turn', 'step', 'position', 'callId', 'tool', 'argsJson'] as const;
const RESULT = [
  'status',
  'outcome',
  'output',
  'errorCode',
  'resultJson',
  'attempts',
  'startedAtMs',
  'endedAtMs',
] as const;
/** The stored row is not completed yet: a completed record (the activity's or the workflow's) stands. */
const STILL_OPEN = (t: string) => `${t}."status" <> 'completed'`;

/** Columns of a part row, in parameter order. */
export const PART_COLUMNS = [
  'sessionId',
  'id',
  'messageId',
  'turn',
  'step',
  'position',
  'kind',
  'text',
  'toolCallId',
  'metadataJson',
  'createdAtMs',
] as const;

/** Columns of a message row, in parameter order. */
export const MESSAGE_COLUMNS = ['sessionId', 'id', 'role', 'turn', 'step', 'inputId', 'createdAtMs'] as const;

/** Columns of an input row, in parameter order. */
export const INPUT_COLUMNS = [
  'sessionId',
  'id',
  'text',
  'clientMessageId',
  'admission',
  'state',
  'admittedAtMs',
  'updatedAtMs',
] as const;

/** Columns of an event row, in parameter order (`seq` is assigned by the database). */
export const EVENT_COLUMNS = ['sessionId', 'id', 'type', 'dataJson', 'atMs'] as const;

/** Columns of a session row a turn writes (sessionTurn), in parameter order. */
export const SESSION_TURN_COLUMNS = [
  'id',
  'workflowId',
  'workspace',
  'provider',
  'model',
  'status',
  'title',
  'host',
  'taskQueue',
  'agent',
  'parentSessionId',
  'rootSessionId',
  'depth',
  'createdAtMs',
  'updatedAtMs',
] as const;

/** `"column" = <placeholder>` for each column, from parameter `from` on. */
function assignments(dialect: Dialect, columns: readonly string[], from = 1): string {
  const ps = placeholders(dialect, columns.length, from);
  return columns.map((c, i) => `${q(c)} = ${ps[i]}`).join(', ');
}

/** Condition on (turn, step) strictly after a given step: parameters turn, turn, step. */
function afterStep(dialect: Dialect, from: number): string {
  const [a, b, c] = placeholders(dialect, 3, from);
  return `("turn" > ${a} OR ("turn" = ${b} AND "step" > ${c}))`;
}

/** The rows of a session's steps after (turn, step): parameters sessionId, turn, turn, step. */
function rowsAfter(name: string, tableName: string, orderBy: string): Statement {
  return {
    name,
    reader: true,
    text: (dialect, table) =>
      `SELECT * FROM ${table(tableName)} WHERE "sessionId" = ${placeholders(dialect, 1)[0]} AND ${afterStep(dialect, 2)}${orderBy}`,
  };
}

/** The hot-path statements, by name. */
export const STATEMENTS = {
  /** A call the model asked for (TD8): identity and planned/blocked status; result columns kept when present. */
  toolCallPlan: upsert('zuno_tool_call_plan', 'tool_calls', TOOL_CALL_COLUMNS, [
    ...IDENTITY,
    'status',
    'outcome',
    'blockedCategory',
    'output',
    'errorCode',
  ]),
  /** A call an activity attempt started: `running` with its attempt and start, unless already completed. */
  toolCallRunning: upsert(
    'zuno_tool_call_running',
    'tool_calls',
    TOOL_CALL_COLUMNS,
    ['status', 'attempts', 'startedAtMs'],
    STILL_OPEN,
  ),
  /** A call's own result: written only while the row is not completed (the first record stands). */
  toolCallComplete: upsert('zuno_tool_call_complete', 'tool_calls', TOOL_CALL_COLUMNS, RESULT, STILL_OPEN),
  part: upsert('zuno_part', 'parts', PART_COLUMNS, PART_COLUMNS.slice(2, -1)),
  message: upsert('zuno_message', 'messages', MESSAGE_COLUMNS, ['role', 'turn', 'step', 'inputId']),
  input: upsert('zuno_input', 'inputs', INPUT_COLUMNS, [
    'text',
    'clientMessageId',
    'admission',
    'state',
    'updatedAtMs',
  ]),
  /**
   * The session row at a turn's first step: inserted, or updated to the
   * turn's route, provider, model and status; a stored title, the creation
   * time, final text and error are kept. Parameters: SESSION_TURN_COLUMNS.
   */
  sessionTurn: {
    name: 'zuno_session_turn',
    reader: false,
    text: (dialect, table) => {
      const kept = new Set(['id', 'title', 'createdAtMs']);
      const set = SESSION_TURN_COLUMNS.filter((c) => !kept.has(c)).map((c) => `${q(c)} = excluded.${q(c)}`);
      return (
        `INSERT INTO ${table('sessions')} (${SESSION_TURN_COLUMNS.map(q).join(', ')}) ` +
        `VALUES (${placeholders(dialect, SESSION_TURN_COLUMNS.length).join(', ')}) ` +
        `ON CONFLICT ("id") DO UPDATE SET ${set.join(', ')}, "title" = COALESCE("sessions"."title", excluded."title")`
      );
    },
  },
  /**
   * A session's status at a turn's end: status, final text and error (NULL
   * keeps the stored one — except that a `completed` end clears an earlier
   * turn's error, e.g. a pause that was resumed), updatedAtMs; no row, no
   * change. Parameters: status, finalText, status, error, error, updatedAtMs, id.
   */
  sessionStatus: {
    name: 'zuno_session_status',
    reader: false,
    text: (dialect, table) => {
      // Positional on SQLite (`?`): the status and the error are given twice.
      const [st, text, st2, err, err2, at, id] = placeholders(dialect, 7);
      return (
        `UPDATE ${table('sessions')} SET "status" = ${st}, "finalText" = COALESCE(${text}, "finalText"), ` +
        `"error" = CASE WHEN ${st2} = 'completed' THEN ${err} ELSE COALESCE(${err2}, "error") END, ` +
        `"updatedAtMs" = ${at} WHERE "id" = ${id}`
      );
    },
  },
  /** An input's SE2 state: no row, no change. Parameters: state, updatedAtMs, sessionId, id. */
  inputState: {
    name: 'zuno_input_state',
    reader: false,
    text: (dialect, table) =>
      `UPDATE ${table('inputs')} SET ${assignments(dialect, ['state', 'updatedAtMs'])} ` +
      `WHERE ${assignments(dialect, ['sessionId', 'id'], 3).replace(', ', ' AND ')}`,
  },
  /** A session's work-state row: sessionId. */
  workState: {
    name: 'zuno_work_state',
    reader: true,
    text: (dialect, table) =>
      `SELECT * FROM ${table('work_states')} WHERE "sessionId" = ${placeholders(dialect, 1)[0]}`,
  },
  /** Insert-if-absent by (sessionId, id); returns the new row's seq, or no row when it existed. */
  event: {
    name: 'zuno_event',
    reader: true,
    text: (dialect, table) =>
      `INSERT INTO ${table('events')} (${EVENT_COLUMNS.map(q).join(', ')}) ` +
      `VALUES (${placeholders(dialect, EVENT_COLUMNS.length).join(', ')}) ` +
      `ON CONFLICT ("sessionId", "id") DO NOTHING RETURNING "seq"`,
  },
  /** The seq of one event: sessionId, id. */
  eventSeq: {
    name: 'zuno_event_seq',
    reader: true,
    text: (dialect, table) =>
      `SELECT "seq" FROM ${table('events')} WHERE "sessionId" = ${placeholders(dialect, 1)[0]} AND "id" = ${placeholders(dialect, 1, 2)[0]}`,
  },
  /** The newest event of one type: sessionId, type. */
  lastEventOfType: {
    name: 'zuno_last_event_of_type',
    reader: true,
    text: (dialect, table) =>
      `SELECT * FROM ${table('events')} WHERE "sessionId" = ${placeholders(dialect, 1)[0]} AND "type" = ${placeholders(dialect, 1, 2)[0]} ` +
      `ORDER BY "seq" DESC LIMIT 1`,
  },
  /** Parts of the steps up to and including (turn, step): sessionId, turn, turn, step. */
  partsThroughCount: {
    name: 'zuno_parts_through_count',
    reader: true,
    text: (dialect, table) => {
      const [s, a, b, c] = placeholders(dialect, 4);
      return `SELECT COUNT(*) AS "n" FROM ${table('parts')} WHERE "sessionId" = ${s} AND ("turn" < ${a} OR ("turn" = ${b} AND "step" <= ${c}))`;
    },
  },
  /** Parts after step (turn, step): sessionId, turn, turn, step. */
  partsAfter: rowsAfter('zuno_parts_after', 'parts', ' ORDER BY "turn", "step", "position", "id"'),
  /** Tool calls after step (turn, step): sessionId, turn, turn, step. */
  toolCallsAfter: rowsAfter('zuno_tool_calls_after', 'tool_calls', ' ORDER BY "turn", "step", "position", "id"'),
  /** Messages after step (turn, step): sessionId, turn, turn, step. */
  messagesAfter: rowsAfter('zuno_messages_after', 'messages', ''),
  /** Parts of one step: sessionId, turn, step. */
  stepParts: {
    name: 'zuno_step_parts',
    reader: true,
    text: (dialect, table) => {
      const [s, t, st] = placeholders(dialect, 3);
      return `SELECT * FROM ${table('parts')} WHERE "sessionId" = ${s} AND "turn" = ${t} AND "step" = ${st} ORDER BY "position", "id"`;
    },
  },
  /** Tool calls that succeeded: sessionId (the read credentials are rebuilt from them, FT1). */
  okToolCalls: {
    name: 'zuno_ok_tool_calls',
    reader: true,
    text: (dialect, table) =>
      `SELECT * FROM ${table('tool_calls')} WHERE "sessionId" = ${placeholders(dialect, 1)[0]} AND "outcome" = 'ok' ` +
      `ORDER BY "turn", "step", "position", "id"`,
  },
} as const satisfies Record<string, Statement>;

/** The name of a hot-path statement. */
export type StatementName = keyof typeof STATEMENTS;
