/**
 * The projection's public entry for the CLI (client/): opening the store,
 * the store and row types it reads, and the work-state text it prints.
 * Activities and the worker use the projection's own modules; client/ goes
 * through this file only (eslint.config.js enforces it), so the projection
 * can rearrange its internals without reaching into the CLI.
 */
export { openProjectionStore } from './open.js';
export { workStateText } from './work-state-text.js';
export type {
  ApprovalRow,
  CouncilRow,
  DelegationRow,
  EventRow,
  GoalRow,
  HostBindingRow,
  HostClaimResult,
  InputRow,
  MessageRow,
  ProjectionStore,
  ProjectionWrites,
  QuestionRow,
  SessionRow,
  SessionStatus,
  ToolCallRow,
  Transcript,
} from './types.js';
