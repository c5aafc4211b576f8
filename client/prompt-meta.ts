/**
 * The session `zuno prompt show` pretends to start (issue 32): the meta a
 * `zuno run` (or a Goal's session, or a Council seat) in that workspace
 * would get, built offline from zuno.json — no Temporal, no home, no key.
 */
import { DEFAULT_ACTIVITY_DEFAULTS } from '../core/activity-defaults.js';
import { agentRole, AGENT_ROLES, catalogFor, DEFAULT_AGENT_NAME } from '../core/agents.js';
import { BALANCED_REVIEW } from '../core/council/preset.js';
import { ZunoError } from '../core/errors.js';
import type { GoalSnapshot } from '../core/goal/contract.js';
import type { SessionMeta } from '../core/session/meta.js';
import { declaredTools } from '../core/tools/registry.js';
import { sessionNetwork } from './network-config.js';
import { sessionPermission } from './permission-config.js';
import { sandboxPolicy } from './sandbox-config.js';
import { localProvider, resolveModel, type ZunoConfig } from './zuno-config.js';

/** What the shown request is for. */
export interface PromptMetaParts {
  workspace: string;
  zcfg: ZunoConfig;
  /** A role of the roster (default `build`); a Council reviewer is shown as seat 1 of its preset. */
  agent?: string;
  /** `provider/model` (default zuno.json `model`); none: the Chat Completions family. */
  model?: string;
  /** Show a Goal-driven session with this objective. */
  goalObjective?: string;
  nowMs: number;
}

/** The example ids the shown session and Goal carry. */
const SHOWN_SESSION = 'ses_prompt_show';
const SHOWN_GOAL = 'goal_prompt_show';

/**
 * The meta of the shown session and, with a Goal, its snapshot at revision 1.
 * @throws ZunoError `agent_invalid` (listing the roles), `options_conflict`
 *   (`--goal` with another role than build), `model_invalid`,
 *   `provider_unknown`, `config_invalid` (resolveModel).
 */
export function promptMeta(p: PromptMetaParts): { meta: SessionMeta; goal: GoalSnapshot | null; modelShown: string } {
  const name = p.agent ?? DEFAULT_AGENT_NAME;
  const role = agentRole(name);
  if (!role) {
    throw new ZunoError(
      'agent_invalid',
      `unknown agent "${name}"; the roles are ${Object.keys(AGENT_ROLES).join(', ')}`,
    );
  }
  const ref = p.model ?? p.zcfg.model;
  const resolved = ref ? resolveModel(p.zcfg, ref) : { provider: localProvider('http://127.0.0.1:1'), model: '' };
  const seat = role.output === 'council_report';
  const network = sessionNetwork(p.zcfg);
  if (p.goalObjective !== undefined && role.name !== DEFAULT_AGENT_NAME) {
    // `zuno goal start` has no --agent: a Goal's session is always the default role's.
    throw new ZunoError(
      'options_conflict',
      `--goal shows a Goal's session, which runs as ${DEFAULT_AGENT_NAME}: drop --agent ${role.name}`,
    );
  }
  const meta: SessionMeta = {
    sessionId: SHOWN_SESSION,
    workspace: p.workspace,
    provider: resolved.provider,
    model: resolved.model,
    title: 'prompt show',
    toolConcurrency: p.zcfg.concurrency.tool_calls,
    activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
    agent: role.name,
    ...(role.name === DEFAULT_AGENT_NAME
      ? {}
      : { tools: catalogFor(role, Object.keys(declaredTools), undefined, role.mode === 'subagent') }),
    ...sessionPermission(p.zcfg.permission),
    sandbox: sandboxPolicy(p.zcfg.sandbox, p.workspace),
    ...(network ? { network } : {}),
    ...(seat ? { delegation: seatLink(p.nowMs) } : {}),
    ...(p.goalObjective !== undefined ? { goal: { goalId: SHOWN_GOAL } } : {}),
  };
  const goal = p.goalObjective !== undefined ? shownGoal(p.goalObjective, p.nowMs) : null;
  return { meta, goal, modelShown: ref ?? '' };
}

/** A Council seat's link: seat 1 of the balanced-review preset, attempt 1, its deadline from now. */
function seatLink(nowMs: number): NonNullable<SessionMeta['delegation']> {
  return {
    parentSessionId: 'cr_prompt_show',
    rootSessionId: 'cr_prompt_show',
    depth: 1,
    seat: {
      runId: 'cr_prompt_show',
      index: 1,
      of: BALANCED_REVIEW.seats.length,
      attempt: 1,
      maxAttempts: 1 + BALANCED_REVIEW.retries,
      deadlineMs: nowMs + BALANCED_REVIEW.seatDeadlineMs,
    },
  };
}

function shownGoal(objective: string, nowMs: number): GoalSnapshot {
  return {
    goalId: SHOWN_GOAL,
    sessionId: SHOWN_SESSION,
    objective,
    revision: 1,
    state: { status: 'active' },
    budgets: {},
    spent: { tokens: 0, unmeasuredRequests: 0, toolCalls: 0, turns: 0 },
    criteria: [],
    progress: { fingerprint: null, repeats: 0 },
    createdAtMs: nowMs,
    updatedAtMs: nowMs,
  };
}
