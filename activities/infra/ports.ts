/**
 * The ports a tool call reaches session state through (ToolContext in
 * activities/tools/context.ts): the Goal, the session's questions, its
 * stored work state (Plan, Todo) and its background delegations. Interfaces
 * only; the tool activity builds them (activities/goal/goal-port.ts,
 * activities/session/question-port.ts, work-state-port.ts, jobs-port.ts)
 * and tests inject their own.
 */
import type {
  GoalRequestInputResult,
  GoalSnapshot,
  GoalUpdateRequest,
  GoalUpdateResult,
} from '../../core/goal/contract.js';
import type { AskQuestionReceipt, AskQuestionRequest } from '../../core/question-contract.js';
import type { ToolResult } from '../../core/tools/types.js';
import type { DelegationRow } from '../projection/types.js';
import type { WorkDecision, WorkStateColumns } from '../projection/work-state.js';
import type { McpToolFacts } from '../../core/mcp/types.js';
import type { McpCallAnswer, McpProgress } from '../mcp/types.js';

/** The session's Goal as a tool call reaches it (ToolContext.goal): through the `goal` workflow, which owns it. */
export interface GoalPort {
  goalId: string;
  /** The Goal as its workflow holds it now (the `goal` Query). */
  get(): Promise<GoalSnapshot>;
  /** One atomic `goalUpdate` (GL30); receipts named in `settle` are looked up in the session first (GL32, ./receipt-lookup.ts). */
  update(req: Omit<GoalUpdateRequest, 'receipts' | 'turn'>): Promise<GoalUpdateResult>;
  /** The `goalRequestInput` Update (GL39). */
  requestInput(expectedRevision: number, question: string): Promise<GoalRequestInputResult>;
}

/** The session's questions as a tool call reaches them (ToolContext.questions): through the session workflow, which owns them. */
export interface QuestionPort {
  /** The `askQuestion` Update: publishes the question, returns its receipt (the same one when sent again). */
  ask(req: Pick<AskQuestionRequest, 'header' | 'items'>): Promise<AskQuestionReceipt>;
}

/**
 * The session's stored work state as one tool call sees it (built by the
 * tool activity for bodies that declare `needsWorkState`;
 * activities/session/work-state-port.ts).
 */
export interface WorkStatePort {
  /** The committed state columns now. */
  read(): Promise<WorkStateColumns>;
  /**
   * Decides and applies this call's update exactly once: a second run of
   * the same call returns the recorded result without calling `decide`
   * (see activities/projection/work-state.ts `applyWorkUpdateOnce`).
   */
  updateOnce(decide: (current: WorkStateColumns) => WorkDecision<ToolResult>): Promise<ToolResult>;
}

/** The session's background delegations, read from the projection (`delegations` rows). */
export interface JobsPort {
  /** The session's jobs (background delegations), oldest first. */
  list(): Promise<DelegationRow[]>;
  /** One job by id, or null. */
  get(jobId: string): Promise<DelegationRow | null>;
}

/** One MCP tool as `tool_search` sees it: compact metadata only (MC2), never its schema. */
export interface McpSearchEntry {
  /** Wire name (`mcp__<server>__<tool>`). */
  name: string;
  server: string;
  tool: string;
  title?: string;
  /** The tool's description, cut to a bounded summary. */
  summary: string;
  facts: McpToolFacts;
  /** true when its schema is withheld from requests now (found only by search). */
  deferred: boolean;
}

/**
 * The session's MCP servers as one tool call reaches them (ToolContext.mcp,
 * for bodies that declare `needsMcp`; built by the tool activity from the
 * worker's hub, activities/mcp/port.ts).
 */
export interface McpPort {
  /** The visible tools of the connected servers (MC1 ceiling and permission filter applied), in catalog order. */
  searchable(): Promise<McpSearchEntry[]>;
  /**
   * Records a `tool_search` match in the session's durable exposure ledger
   * (MC3, an `mcp.tools.exposed` event keyed by the call); the same call
   * recorded again writes nothing new. Returns the ledger's revision.
   */
  expose(query: string, tools: Pick<McpSearchEntry, 'name' | 'server' | 'tool'>[]): Promise<number>;
  /**
   * One `tools/call` (hub.ts `call`).
   * @throws McpCallError
   */
  call(
    facts: Pick<McpToolFacts, 'server' | 'tool'>,
    args: Record<string, unknown>,
    onProgress?: (p: McpProgress) => void,
  ): Promise<McpCallAnswer>;
}
