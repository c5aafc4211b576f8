import type { ReadCredential } from '../../core/tools/read.js';
import type { ProjectionStore, ToolCallRow } from '../projection/types.js';

function isCredential(v: unknown): v is ReadCredential {
  const c = v as ReadCredential | null;
  return typeof c?.path === 'string' && typeof c.sha256 === 'string';
}

/** Credentials one successful call left behind: `read`/`write` → `data.credential`, `apply_patch` → each change's. */
function credentialsOf(row: ToolCallRow): ReadCredential[] {
  const r = row.result as { credential?: unknown; changes?: { credential?: unknown }[] } | null | undefined;
  if (!r) return [];
  const found = [r.credential, ...(r.changes ?? []).map((c) => c.credential)];
  return found.filter(isCredential);
}

/**
 * The session's newest read credential per workspace-relative path (FT1),
 * rebuilt from the stored tool-call rows in call order — durable across
 * workers and restarts, because the rows are the record of what was read or
 * written. Returns a lookup for tools that must prove a prior read.
 */
export async function sessionCredentials(
  store: ProjectionStore,
  sessionId: string,
): Promise<(relPath: string) => ReadCredential | undefined> {
  const newest = new Map<string, ReadCredential>();
  for (const row of await store.okToolCalls(sessionId)) for (const c of credentialsOf(row)) newest.set(c.path, c);
  return (relPath) => newest.get(relPath);
}
