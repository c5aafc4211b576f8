/**
 * The `SessionMeta` a command starts a session (or a Council's seats) with:
 * the model resolved for it, the workspace, its route, and what `zuno.json`
 * and `temporal.yaml` say about concurrency, activity defaults, permission,
 * sandbox, the model's context window, compaction and MCP servers. One builder for
 * `zuno run`, `zuno goal start` and `zuno council run`.
 */
import { agentRole } from '../core/agents.js';
import type { SessionMeta, SessionRoute } from '../core/session/meta.js';
import type { TemporalContext } from './context.js';
import { sessionPermission } from './permission-config.js';
import { sandboxPolicy } from './sandbox-config.js';
import { sessionCompaction } from './compaction-config.js';
import { sessionMcp } from './mcp-config.js';
import { sessionNetwork } from './network-config.js';
import type { modelFor } from './scripted-provider.js';
import type { ZunoConfig } from './zuno-config.js';

/** What differs between the commands that build a session's meta. */
export interface SessionMetaParts {
  sessionId: string;
  workspace: string;
  /** The model the session runs on (`modelFor`). */
  resolved: ReturnType<typeof modelFor>;
  /** The session's title as listed (at most 80 characters is the caller's concern). */
  title: string;
  zcfg: ZunoConfig;
  temporal: TemporalContext;
  route: SessionRoute | undefined;
  /** The agent role and its tools (`zuno run --agent`); absent: the default role. */
  agent?: Pick<SessionMeta, 'agent' | 'tools'>;
}

/** Builds a session's meta (SE1) from the command's parts; pure apart from the sandbox's path checks. */
export function sessionMetaFor(p: SessionMetaParts): SessionMeta {
  // Issue 30: the enabled MCP servers, within the role's MC4 ceiling (absent when none is enabled).
  const mcp = sessionMcp(p.zcfg, p.workspace, p.agent?.tools ?? agentRole(p.agent?.agent)?.tools);
  const network = sessionNetwork(p.zcfg);
  return {
    sessionId: p.sessionId,
    workspace: p.workspace,
    provider: p.resolved.provider,
    model: p.resolved.model,
    title: p.title,
    ...(p.agent ?? {}),
    toolConcurrency: p.zcfg.concurrency.tool_calls,
    activityDefaults: p.temporal.cfg.activities,
    route: p.route,
    ...sessionPermission(p.zcfg.permission),
    sandbox: sandboxPolicy(p.zcfg.sandbox, p.workspace),
    // CP6/CP7: the model's window (absent: unknown) and the compaction settings; children and seats inherit them.
    ...sessionCompaction(p.zcfg, p.resolved.provider.id, p.resolved.model),
    ...(mcp ? { mcp } : {}),
    ...(network ? { network } : {}),
  };
}
