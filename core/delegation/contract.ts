/**
 * The delegation contract (DC1–DC4, DC8–DC22; issue 12; decisions in
 * docs/delegation.md): how a session's `task` call becomes a child
 * `session` workflow, what the child inherits, and the payloads of the
 * activities that record it. Deterministic: shared by the session workflow,
 * the council workflow and the activities.
 */
import { mcpAccessFor } from '../mcp/access.js';
import type { SessionMeta } from '../session/meta.js';
import type { ToolActivityResult } from '../session/tool-activity.js';
import { agentRole, catalogFor, DEFAULT_AGENT_NAME, type AgentRole } from '../agents.js';
import type { DelegationLink } from './link.js';

/**
 * Deepest a delegation may nest (DC22 SEED-GAP, decided): a session a
 * person starts is depth 0; its children 1; theirs 2. A session at this
 * depth cannot delegate: its `task` and `council_run` calls are settled
 * `blocked` (`denied`, failure type `delegation_depth`, TD8) with a message
 * naming the depth, and nothing starts. The tools are still offered to it
 * (issue 25 item 7.3): a child inherits its parent's full authorized
 * catalog (SPEC DC), and one refusal that says why beats a model told
 * `Tool "task" is not available` with no reason.
 */
export const MAX_DELEGATION_DEPTH = 2;

/**
 * The delegation activities (implemented in activities/delegation/), as the
 * session workflow calls them (workflows/delegation.ts, council-call.ts).
 */
export interface DelegationActivities {
  /** A delegated call without a delegation row (`council_run`) is running: its row and `tool.started`. */
  recordCallStarted(input: { sessionId: string; rowId: string }): Promise<void>;
  openDelegation(input: OpenDelegationInput): Promise<ToolActivityResult | null>;
  settleDelegation(input: SettleDelegationInput): Promise<SettleDelegationResult>;
}

/** How a child session ended, as its parent's workflow saw it (from the child workflow's result or failure). */
export type ChildStatus = 'completed' | 'failed' | 'blocked' | 'paused' | 'interrupted' | 'cancelled' | 'uncertain';

/** What the parent's workflow learned of a settled child (small: the report itself is in the projection). */
export interface ChildEnd {
  status: ChildStatus;
  /** The Zuno error code of a failed/blocked child, or Temporal's failure type (`TerminatedFailure`…). */
  code?: string;
  message?: string;
}

/** Input of the `openDelegation` activity: the rows of a delegation before its child starts (idempotent). */
export interface OpenDelegationInput {
  parentSessionId: string;
  rootSessionId: string;
  turn: number;
  step: number;
  rowId: string;
  callId: string;
  /** Present for a background delegation: the call's own result (the job id) is written in the same transaction. */
  jobId?: string;
  childSessionId: string;
  agent: string;
  depth: number;
  objective: string;
  /** The child's meta, for its session row. */
  child: Pick<SessionMeta, 'workspace' | 'provider' | 'model' | 'title' | 'route'>;
  /** DC17 evidence boundary: report_write receipts of the child issued after this (ms) become artifacts. */
  startedAtMs: number;
}

/** Input of the `settleDelegation` activity: the child settled; record it and build the parent's result (idempotent). */
export interface SettleDelegationInput {
  parentSessionId: string;
  turn: number;
  step: number;
  rowId: string;
  callId: string;
  jobId?: string;
  childSessionId: string;
  agent: string;
  end: ChildEnd;
  settledAtMs: number;
}

/**
 * Result of `settleDelegation`: for a foreground task, what the tool call
 * returns (its result is written to the parent's tool-call row); for a
 * background job, the report admitted to the parent's inbox (≤ 8 KiB; the
 * job row holds it in full).
 */
export interface SettleDelegationResult {
  call: ToolActivityResult;
  report: string;
}

/** The job id of a background delegation started by the call at (turn, step, position). */
export function jobIdOf(turn: number, step: number, position: number): string {
  return `job_${turn}_${step}_${position}`;
}

/** A child session id from a workflow uuid (`ses_` + 32 hex digits). */
export function childSessionIdOf(uuid: string): string {
  return `ses_${uuid.replace(/-/g, '')}`;
}

/** The role a session runs as (absent: `build`). */
export function roleOf(meta: Pick<SessionMeta, 'agent'>): AgentRole {
  return agentRole(meta.agent) ?? agentRole(DEFAULT_AGENT_NAME)!;
}

/**
 * The tools a session may call (its catalog, DC2/DC9): `meta.tools` when
 * set (a child's, or a session started with `--agent`), else its role's
 * allowlist over every declared tool.
 * @param all every declared tool name, in registry order.
 */
export function sessionCatalog(meta: Pick<SessionMeta, 'agent' | 'tools'>, all: readonly string[]): string[] {
  return meta.tools ? all.filter((t) => meta.tools!.includes(t)) : catalogFor(roleOf(meta), all, undefined, false);
}

/**
 * The meta of a child session (DC2, DC9, DC19, DC21): the parent's
 * provider, model, retry and activity defaults, route, sandbox, tool
 * concurrency and permission policy unchanged (nothing widens); the tool
 * catalog narrowed to the role's allowlist within the parent's catalog,
 * without the user-facing tools (DC20) and the Goal tools; no Goal.
 * @param all every declared tool name, in registry order.
 */
export function childMeta(
  parent: SessionMeta,
  child: { sessionId: string; agent: string; title: string; link: DelegationLink },
  all: readonly string[],
): SessionMeta {
  const role = agentRole(child.agent);
  if (!role) throw new Error(`unknown agent ${child.agent}`);
  const { goal: _goal, ...inherited } = parent;
  return {
    ...inherited,
    sessionId: child.sessionId,
    title: child.title,
    agent: role.name,
    // At the depth limit the delegation tools stay in the catalog (DC: a child inherits its parent's full
    // authorized catalog): a call of one is refused blocked `delegation_depth`, naming the depth (TD8).
    tools: catalogFor(role, all, sessionCatalog(parent, all), true),
    delegation: child.link,
    // MC4: the child's MCP ceiling is its role's within its parent's.
    ...(parent.mcp ? { mcp: { ...parent.mcp, access: mcpAccessFor(role.tools, parent.mcp.access) } } : {}),
  };
}

/** The depth of a session (0 for one a person started). */
export function depthOf(meta: Pick<SessionMeta, 'delegation'>): number {
  return meta.delegation?.depth ?? 0;
}

/**
 * The child's first input (DC1): the flat contract, stated plainly, and
 * the child's rules of escalation (DC20: a child never asks the user; it
 * reports obstacles to its parent).
 */
export function taskPrompt(a: {
  agent: string;
  objective: string;
  deliverable: string;
  instructions: string;
  success_evidence: string;
}): string {
  return [
    `You are a delegated ${a.agent} agent working for a parent agent, not for a person.`,
    '',
    `Objective: ${a.objective}`,
    `Deliverable: ${a.deliverable}`,
    `Instructions: ${a.instructions}`,
    `Success evidence: ${a.success_evidence}`,
    '',
    'Never ask the user anything: if you are blocked or something is unclear, say so in your final report to the parent.',
    'Your final answer is your report: what you did or found, the evidence, and what remains unknown.',
  ].join('\n');
}
