import type { SessionGrant } from '../core/permission/types.js';
import { ZunoError } from '../core/errors.js';
import type { CarriedState } from '../core/session/meta.js';
import type { ProjectionStore, SessionRow } from '../activities/projection/index.js';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { hostId } from './routing.js';
import { resolveDeployment } from './deployment/resolve.js';
import { openStore, type ZunoPaths } from './context.js';
import { checkSessionId } from './session-id.js';

/** Which session a `zuno run` drives: a new one, or one that exists (`--session`, `--continue`). */
export type RunTarget = { kind: 'new' } | { kind: 'existing'; row: SessionRow };

/**
 * Resolves `--session <id>` / `--continue` to the stored session, before
 * anything is started or written. `workspace` is the workspace the command
 * names (`--dir`, else the current directory); `dirGiven` says whether
 * `--dir` was given (then it must match the session's own workspace).
 * @throws ZunoError `options_conflict` (both given), `session_id_invalid`,
 *   `session_not_found` (unknown id; no session in this workspace),
 *   `workspace_invalid` (`--dir` names another workspace), `session_elsewhere`
 *   (its workspace is on another host).
 */
export async function findRunTarget(
  store: ProjectionStore | null,
  opts: { session?: string; continue?: boolean; workspace: string; dirGiven: boolean; home: string },
): Promise<RunTarget> {
  if (opts.session !== undefined && opts.continue) {
    throw new ZunoError('options_conflict', '--session and --continue both choose a session: give one of them');
  }
  let row: SessionRow | null = null;
  if (opts.session !== undefined) {
    const id = checkSessionId(opts.session);
    row = store ? await store.getSession(id) : null;
    if (!row) {
      throw new ZunoError(
        'session_not_found',
        `no session ${id} in Zuno's home ${opts.home} (\`zuno session list\` shows the sessions there)`,
      );
    }
    if (opts.dirGiven && row.workspace !== opts.workspace) {
      throw new ZunoError(
        'workspace_invalid',
        `session ${id} works in ${row.workspace}, not ${opts.workspace}: leave out --dir to continue it there`,
      );
    }
  } else if (opts.continue) {
    [row = null] = store ? await store.listSessions({ workspace: opts.workspace, limit: 1 }) : [];
    if (!row) {
      throw new ZunoError(
        'session_not_found',
        `no session in workspace ${opts.workspace} yet: start one with \`zuno run "…"\` (or name one with --session; \`zuno session list\` shows them all)`,
      );
    }
  }
  if (!row) return { kind: 'new' };
  const here = hostId();
  if (row.host && row.host !== here) {
    throw new ZunoError(
      'session_elsewhere',
      `session ${row.id} works in ${row.workspace} on host ${row.host}, not on this host (${here}): continue it there`,
    );
  }
  return { kind: 'existing', row };
}

/**
 * The state a new workflow run of a closed session starts from, read from
 * the projection: turn and input numbering continue, the last answer is
 * known. The transcript, tool results and read credentials stay in the
 * projection, where every model step and tool call reads them.
 */
export async function reopenState(store: ProjectionStore, row: SessionRow): Promise<CarriedState> {
  const cursor = await store.sessionCursor(row.id);
  const grants = await sessionGrants(store, row.id);
  return {
    ...cursor,
    pending: [],
    seenClientIds: [],
    lastFinalText: row.finalText ?? null,
    ...(grants.length > 0 ? { grants } : {}),
  };
}

/** The "approve for this session" grants a session's earlier runs decided (they hold for the whole session). */
async function sessionGrants(store: ProjectionStore, sessionId: string): Promise<SessionGrant[]> {
  const rows = await store.listApprovals({ sessionId, limit: 1000 });
  const grants: SessionGrant[] = [];
  for (const r of rows) {
    if (r.decision !== 'approve_session') continue;
    // A `call` grant is one pattern, the whole text (line feeds included); older rows hold one pattern per line.
    const patterns = r.grantScope === 'call' ? [r.grantPattern ?? ''] : (r.grantPattern?.split('\n') ?? ['*']);
    for (const pattern of patterns) {
      const g: SessionGrant = { tool: r.tool, pattern, ...(r.grantScope ? { scope: r.grantScope } : {}) };
      if (!grants.some((x) => x.tool === g.tool && x.pattern === g.pattern && x.scope === g.scope)) grants.push(g);
    }
  }
  return grants;
}

/**
 * Opens the projection to look a session up, creating nothing: null for a
 * home with no SQLite projection yet (it has no sessions); PostgreSQL (the
 * resolved projection: `DATABASE_URL` or the deployment file's) is opened as is.
 */
export async function openExistingStore(paths: ZunoPaths): Promise<ProjectionStore | null> {
  if (!resolveDeployment(paths).projection.value && !existsSync(join(paths.stateDir, 'zuno.db'))) return null;
  return openStore(paths);
}
