import { isAbsolute, join, resolve } from 'node:path';
import { ZunoError } from '../../core/errors.js';

/** Where the projection store lives, resolved from the database URL. */
export type BackendTarget = SqliteTarget | PostgresTarget;

export interface SqliteTarget {
  kind: 'sqlite';
  /** Absolute path of the database file. */
  file: string;
  /** Human description for messages, e.g. `SQLite database /x/.zuno/zuno.db`. */
  describe: string;
}

export interface PostgresTarget {
  kind: 'postgresql';
  /** The URL handed to `pg`, without Prisma's `schema` parameter. Contains the password: never print it. */
  connectionString: string;
  /** Schema holding the tables (`?schema=`, default `public`); a plain identifier. */
  schema: string;
  /** Human description without credentials, e.g. `PostgreSQL at 127.0.0.1:5432, database "test", schema "public"`. */
  describe: string;
  /** Secret strings (raw and decoded password) to scrub from any error text. */
  secrets: string[];
}

const PLAIN_IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]{0,62}$/;

/**
 * Picks the backend for a database URL (DESIGN.md §1 "projection DB").
 *
 * - `undefined` or `''` → SQLite file `<zunoDir>/zuno.db`;
 * - `file:<path>` → SQLite at that path (relative paths resolve against the
 *   current directory; a `?query` is ignored);
 * - `postgres://…` / `postgresql://…` → PostgreSQL; `?schema=NAME` selects the
 *   schema (plain identifier, default `public`), other parameters go to `pg`.
 *
 * @throws ZunoError `projection_unavailable` for any other scheme, an
 *   unparsable PostgreSQL URL, an in-memory SQLite URL or a schema name that
 *   is not a plain identifier. The message never contains the password.
 */
export function resolveBackend(opts: { databaseUrl?: string; zunoDir: string }): BackendTarget {
  const url = opts.databaseUrl?.trim() ?? '';
  if (url === '') return sqlite(join(resolve(opts.zunoDir), 'zuno.db'));
  if (/^postgres(ql)?:\/\//i.test(url)) return postgres(url);
  if (/^file:/i.test(url)) {
    const path = url.slice('file:'.length).replace(/\?.*$/, '');
    if (path === '' || path.includes(':memory:')) {
      throw new ZunoError(
        'projection_unavailable',
        'SQLite database URL must name a file (in-memory databases are not supported: the worker and the CLI share the file)',
      );
    }
    return sqlite(isAbsolute(path) ? path : resolve(path));
  }
  const scheme = /^([A-Za-z][A-Za-z0-9+.-]*):/.exec(url)?.[1];
  throw new ZunoError(
    'projection_unavailable',
    `unsupported database URL${scheme ? ` scheme "${scheme}:"` : ''}: expected postgres://, postgresql:// or file:`,
  );
}

function sqlite(file: string): SqliteTarget {
  return { kind: 'sqlite', file, describe: `SQLite database ${file}` };
}

function postgres(raw: string): PostgresTarget {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new ZunoError('projection_unavailable', 'PostgreSQL database URL is not a valid URL');
  }
  const secrets: string[] = [];
  if (u.password !== '') {
    secrets.push(u.password);
    try {
      secrets.push(decodeURIComponent(u.password));
    } catch {
      // keep the raw form only
    }
  }
  const host = u.hostname || u.searchParams.get('host') || 'localhost';
  const port = u.port || '5432';
  const database = decodeSafe(u.pathname.replace(/^\//, '')) || '(default)';
  const schema = u.searchParams.get('schema') || 'public';
  const describe = `PostgreSQL at ${host}:${port}, database "${database}", schema "${schema}"`;
  if (!PLAIN_IDENTIFIER.test(schema)) {
    throw new ZunoError(
      'projection_unavailable',
      `${describe}: schema name must be a plain identifier ([A-Za-z_][A-Za-z0-9_]*)`,
    );
  }
  u.searchParams.delete('schema');
  return { kind: 'postgresql', connectionString: u.toString(), schema, describe, secrets };
}

function decodeSafe(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}

/** `text` with every secret replaced by `***`. */
export function scrub(text: string, secrets: readonly string[]): string {
  let out = text;
  for (const s of secrets) if (s !== '') out = out.split(s).join('***');
  return out;
}
