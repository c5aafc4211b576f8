/**
 * Tool calls as the session workflow holds them (TD8): a planned call after
 * validation, an outcome the workflow settled itself, and the reconciliation
 * when that settlement met a result the call had already committed.
 */
import type { ShownKind } from '../permission/shown.js';
import type { CallSubject } from '../permission/types.js';
import type { BlockedCategory, ToolOutcome } from '../tools/types.js';
import type { McpToolFacts } from '../mcp/types.js';

/** A tool outcome decided by the workflow, not by the tool activity. */
export interface SettledOutcome {
  rowId: string;
  callId: string;
  tool: string;
  /**
   * `uncertain` for a replay-Never call whose outcome was lost; `error` for a
   * Safe call that kept failing or one that never ran; `blocked` for a call
   * the permission gate refused (TD8 category `denied`): nothing ran.
   */
  outcome: 'uncertain' | 'error' | 'blocked';
  /**
   * `lost_outcome`: the activity timed out or its worker vanished; `interrupted`:
   * a hard interrupt (TD10) forced it past the cooperative window; `failed`: a
   * Safe call kept failing; `not_run`: the turn was interrupted before the call
   * was scheduled (nothing ran).
   */
  cause: 'lost_outcome' | 'interrupted' | 'failed' | 'not_run' | 'denied';
  /** Paths the call may have changed (from its arguments; empty when unknown, e.g. shell). */
  paths: string[];
  /** Temporal's failure type (e.g. `TimeoutFailure`, an ApplicationFailure type). */
  failureType: string;
  message: string;
  observedAtMs: number;
}

/** A tool call the model asked for, after validation (TD8). */
export interface PlannedToolCall {
  /** `tc_{turn}_{step}_{position}` */
  rowId: string;
  position: number;
  /** Place among the step's tool calls, 0-based (absent in histories recorded before it existed). */
  index?: number;
  callId: string;
  name: string;
  /**
   * Validated arguments. Absent when blocked, and absent when the argument
   * text exceeds {@link INLINE_ARGS_MAX_CHARS}: then `argsInProjection` is set
   * and the tool activity reads them from the stored tool-call row, so history
   * payloads stay small (DESIGN.md "Where data lives").
   */
  args?: unknown;
  argsInProjection?: boolean;
  /** One-line summary for the Temporal UI, computed from the arguments by modelStep (set with `argsInProjection`). */
  summary?: string;
  /** Present when the call is rejected: nothing runs, outcome `blocked` is already persisted. */
  blocked?: { category: BlockedCategory; message: string };
  /** What the call touches, for the permission rules (computed by modelStep; absent: nothing known). */
  subject?: CallSubject;
  /**
   * With `argsInProjection` and a subject: what an approval would show
   * (core/permission/shown.ts) — its kind, the sha256 (hex) of its full text
   * and that text's length in characters — since the workflow does not hold
   * the arguments; the text itself is read from the stored row when an
   * approval is recorded (issue 26).
   */
  shown?: { kind: ShownKind; digest: string; chars: number };
  /**
   * A call of an MCP tool (issue 30, MC7): its server, original tool name
   * and TD1 facts from the catalog modelStep offered. The workflow runs it
   * as a `tool_mcp` activity under core/mcp/declaration.ts. Absent: a
   * built-in tool.
   */
  mcp?: McpToolFacts;
}

/**
 * A workflow settlement that arrived after the tool call's own result had
 * committed: the committed result stands (it is what happened), and the
 * tool-call row, a `tool.settlement_superseded` event and this entry in the
 * persisting activity's result all say so, with what the workflow saw.
 */
export interface SettlementReconciliation {
  rowId: string;
  callId: string;
  tool: string;
  /** The committed outcome, which stands. */
  stands: ToolOutcome;
  workflowSaw: Pick<SettledOutcome, 'outcome' | 'cause' | 'failureType' | 'message'>;
}

/** Tool arguments longer than this (UTF-16 units) travel by reference to the projection, not in history. */
export const INLINE_ARGS_MAX_CHARS = 64 * 1024;
