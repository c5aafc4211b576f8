import { DEFAULT_AGENT_NAME } from '../core/agents.js';
import type { ProjectionStore } from '../activities/projection/index.js';

/** How a session sits in its delegation tree. */
export interface SessionLink {
  agent: string;
  /** null for a session a person started. */
  parentSessionId: string | null;
  rootSessionId: string | null;
  depth: number;
}

/** More levels than any delegation tree has (MAX_DELEGATION_DEPTH is 2): a guard against damaged rows. */
const MAX_LEVELS = 16;

/**
 * Who delegated to whom, read from the projection for one command (issue
 * 12): a session's link comes from its row (`parentSessionId`,
 * `rootSessionId`, `depth`, `agent`), else from the delegation that started
 * it (a child listed before its first model step wrote the row). Each
 * session is read once per instance.
 */
export class SessionAncestry {
  private readonly links = new Map<string, Promise<SessionLink>>();

  constructor(private readonly store: Pick<ProjectionStore, 'getSession' | 'getDelegationOfChild'>) {}

  /** The session's link (a session with no row and no delegation reads as a top-level `build` session). */
  link(sessionId: string): Promise<SessionLink> {
    let l = this.links.get(sessionId);
    if (!l) {
      l = this.read(sessionId);
      this.links.set(sessionId, l);
    }
    return l;
  }

  /** Forgets what was read (a session with no row yet may get one with its link). */
  forget(sessionId: string): void {
    this.links.delete(sessionId);
  }

  /** The sessions above `sessionId`, its parent first, up to its root. */
  async ancestors(sessionId: string): Promise<string[]> {
    const out: string[] = [];
    let at = sessionId;
    for (let i = 0; i < MAX_LEVELS; i++) {
      const parent = (await this.link(at)).parentSessionId;
      if (!parent || parent === sessionId || out.includes(parent)) break;
      out.push(parent);
      at = parent;
    }
    return out;
  }

  /** true when `sessionId` is `ancestor` itself or a session below it. */
  async within(sessionId: string, ancestor: string): Promise<boolean> {
    return sessionId === ancestor || (await this.ancestors(sessionId)).includes(ancestor);
  }

  private async read(sessionId: string): Promise<SessionLink> {
    const row = await this.store.getSession(sessionId);
    if (row?.parentSessionId)
      return {
        agent: row.agent ?? DEFAULT_AGENT_NAME,
        parentSessionId: row.parentSessionId,
        rootSessionId: row.rootSessionId ?? row.parentSessionId,
        depth: row.depth ?? 1,
      };
    const d = await this.store.getDelegationOfChild(sessionId);
    if (d)
      return { agent: d.agent, parentSessionId: d.parentSessionId, rootSessionId: d.rootSessionId, depth: d.depth };
    if (!row) this.forget(sessionId); // nothing recorded yet: read it again next time
    return { agent: row?.agent ?? DEFAULT_AGENT_NAME, parentSessionId: null, rootSessionId: null, depth: 0 };
  }
}

/** `ses_p` for a child of a root, `ses_p, root ses_r` deeper down; `—` for a session a person started. */
export function childOfWords(l: SessionLink): string {
  if (!l.parentSessionId) return '—';
  return l.rootSessionId && l.rootSessionId !== l.parentSessionId
    ? `${l.parentSessionId}, root ${l.rootSessionId}`
    : l.parentSessionId;
}
