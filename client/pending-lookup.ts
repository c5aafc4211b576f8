import { ZunoError } from '../core/errors.js';
import type { ErrorCode } from '../core/error-codes.js';

/** A row a person acts on: an approval or a question of a session. */
interface PendingRow {
  id: string;
  sessionId: string;
  status: string;
}

/** How to look one kind of row up (approvals, questions). */
export interface PendingKind<R extends PendingRow> {
  /** `approval`, `question`: for messages. */
  noun: 'approval' | 'question';
  /** The id's shape, e.g. `/^ap_\d+_\d+_\d+$/`, and how it is spelled in messages (`ap_<n>_<n>_<n>`). */
  idPattern: RegExp;
  idShape: string;
  /** The list command that shows them (`zuno approvals list`). */
  listCommand: string;
  notFoundCode: ErrorCode;
  /** The code, and the words for how one ended (`already approved (approve_once)`). */
  doneCode: ErrorCode;
  doneWords(r: R): string;
  get(sessionId: string, id: string): Promise<R | null>;
  list(filter: { status?: 'pending'; limit: number }): Promise<R[]>;
}

/**
 * The pending row a person names: by id, in `sessionId` when given, else the
 * only pending one with that id in Zuno's home (ids repeat across sessions).
 * @throws ZunoError `usage_error` (malformed id), the kind's not-found code,
 *   `<noun>_ambiguous` (several sessions have one pending: names them), and the
 *   kind's done code when it, or every row with that id, has already ended.
 */
export async function findPending<R extends PendingRow>(
  kind: PendingKind<R>,
  id: string,
  sessionId?: string,
): Promise<R> {
  if (!kind.idPattern.test(id))
    throw new ZunoError(
      'usage_error',
      `${JSON.stringify(id.slice(0, 60))} is not ${article(kind.noun)} id (${kind.idShape})`,
    );
  if (sessionId !== undefined) {
    const row = await kind.get(sessionId, id);
    if (!row) throw new ZunoError(kind.notFoundCode, `session ${sessionId} has no ${kind.noun} ${id}`);
    if (row.status !== 'pending')
      throw new ZunoError(kind.doneCode, `${kind.noun} ${id} of session ${sessionId} is ${kind.doneWords(row)}`);
    return row;
  }
  const rows = (await kind.list({ status: 'pending', limit: 1000 })).filter((r) => r.id === id);
  if (rows.length === 1) return rows[0]!;
  if (rows.length > 1)
    throw new ZunoError(
      `${kind.noun}_ambiguous` as const,
      `sessions ${rows.map((r) => r.sessionId).join(', ')} each have a pending ${id}: add --session <id>`,
    );
  const ended = (await kind.list({ limit: 1000 })).filter((r) => r.id === id);
  if (ended.length > 0)
    throw new ZunoError(
      kind.doneCode,
      `no ${kind.noun} ${id} is pending: ` +
        ended.map((r) => `in session ${r.sessionId} it is ${kind.doneWords(r)}`).join('; '),
    );
  throw new ZunoError(kind.notFoundCode, `no pending ${kind.noun} ${id}: list them with ${kind.listCommand}`);
}

function article(noun: string): string {
  return /^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`;
}
