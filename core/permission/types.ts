import type { ToolEffect } from '../tools/types.js';

/** What a rule or mode decides for one call (TD2, TD7, PM5). */
export type PermissionAction = 'allow' | 'ask' | 'deny';
/** `permission.mode` (PM10 SEED-GAP, decided in docs/permissions.md). */
export type PermissionMode = 'standard' | 'strict' | 'allow_all';

/** What a call touches, computed by the modelStep activity (it has the filesystem and the shell parser) and carried to the workflow. */
export type CallSubject =
  | { kind: 'paths'; paths: string[] }
  | { kind: 'commands'; commands: string[] }
  | { kind: 'none' };

/** One rule: a tool name (or a group key such as `edit`, or `*`), an optional subject pattern, an action. */
export interface PermissionRule {
  tool: string;
  pattern?: string;
  action: PermissionAction;
}

/** A session's permission policy: the mode and the rules in config order (last match wins). */
export interface PermissionPolicy {
  mode: PermissionMode;
  rules: PermissionRule[];
}

/** "Approve for this session": the same tool and subject pattern stop asking. */
export interface SessionGrant {
  tool: string;
  pattern: string;
}

/** The verdict on one call. */
export interface PermissionDecision {
  action: PermissionAction;
  /** Plain words: which rule or mode decided. */
  reason: string;
  /** The subject as a person reads it in an approval prompt (`rm -rf build`, `src/a.ts`). */
  subjectText: string;
  /** For `ask`: the pattern an "approve for this session" grant stores. */
  grantPattern?: string;
}

/** The call facts {@link PermissionDecision}s are made on. */
export interface PermissionCall {
  tool: string;
  effect: ToolEffect;
  subject: CallSubject;
}
