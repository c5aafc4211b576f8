import { agentRole, catalogFor, DEFAULT_AGENT_NAME, primaryAgents } from '../core/agents.js';
import { ZunoError } from '../core/errors.js';
import type { SessionMeta } from '../core/session/meta.js';
import { declaredTools } from '../core/tools/registry.js';
import type { SessionRow } from '../activities/projection/index.js';

/**
 * The role a `zuno run` session runs as, checked offline before anything
 * starts or is written (issue 12): `--agent` must name a primary role
 * (`primaryAgents()`); a continued session keeps the role it was started
 * with (`--agent` may repeat it, not change it), and a child session — one a
 * `task` delegated to — is not continued by a person (it reports to its
 * parent: DC20). Returns the meta fields: `agent`, and for every role but
 * `build` its catalog `tools` (the role's allowlist over every declared tool;
 * `build` keeps the default, every tool).
 * @throws ZunoError `agent_invalid` (unknown or subagent-only role, listing
 *   the primary roles), `options_conflict` (another role than the continued
 *   session's), `session_delegated` (a child session).
 */
export function runAgent(
  requested: string | undefined,
  existing: Pick<SessionRow, 'id' | 'agent' | 'parentSessionId'> | null,
): Pick<SessionMeta, 'agent' | 'tools'> {
  if (requested !== undefined) checkPrimary(requested);
  if (existing?.parentSessionId?.startsWith('cr_')) {
    throw new ZunoError(
      'session_delegated',
      `session ${existing.id} is a seat of council ${existing.parentSessionId}: a seat reports to its Council and is ` +
        `not continued; see zuno council show ${existing.parentSessionId}`,
    );
  }
  if (existing?.parentSessionId) {
    throw new ZunoError(
      'session_delegated',
      `session ${existing.id} is a child session delegated by ${existing.parentSessionId}: it reports to its parent, ` +
        `continue that one instead (zuno run --session ${existing.parentSessionId} "…")`,
    );
  }
  const name = existing ? (existing.agent ?? DEFAULT_AGENT_NAME) : (requested ?? DEFAULT_AGENT_NAME);
  if (existing && requested !== undefined && requested !== name) {
    throw new ZunoError(
      'options_conflict',
      `session ${existing.id} runs as the ${name} agent; --agent ${requested} cannot change it (start a new session for another role)`,
    );
  }
  const role = agentRole(name);
  if (!role) throw new ZunoError('agent_invalid', `session ${existing?.id ?? ''} names an unknown agent ${name}`);
  if (requested === undefined && !existing?.agent) return {};
  return {
    agent: role.name,
    ...(role.name !== DEFAULT_AGENT_NAME
      ? { tools: catalogFor(role, Object.keys(declaredTools), undefined, false) }
      : {}),
  };
}

function checkPrimary(name: string): void {
  const primary = primaryAgents();
  if (primary.includes(name)) return;
  const shown = JSON.stringify(name.slice(0, 40));
  const why = agentRole(name) ? `${shown} is a subagent role (only a task delegates to it)` : `no agent ${shown}`;
  throw new ZunoError('agent_invalid', `--agent: ${why}; choose one of ${primary.join(', ')}`);
}
