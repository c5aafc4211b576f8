import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';

/**
 * The custom search attributes Zuno sets on its workflows (DESIGN.md §3, the
 * ops view is the Temporal UI). Registered from temporal.yaml
 * `searchAttributes`; deterministic, shared by workflows and clients.
 */
/** `session`, `goal` or `council`. */
export const ZunoKind = defineSearchAttributeKey('ZunoKind', SearchAttributeType.KEYWORD);
/** The session id (`ses_…`). */
export const ZunoSessionId = defineSearchAttributeKey('ZunoSessionId', SearchAttributeType.KEYWORD);
/** `provider/model` the session is frozen with. */
export const ZunoModel = defineSearchAttributeKey('ZunoModel', SearchAttributeType.KEYWORD);
/** The agent role (`build` by default). */
export const ZunoAgent = defineSearchAttributeKey('ZunoAgent', SearchAttributeType.KEYWORD);
/** The session's status, upserted at every phase change (core/session/state.ts `ZunoStatusValue`). */
export const ZunoStatus = defineSearchAttributeKey('ZunoStatus', SearchAttributeType.KEYWORD);

/** A child session's parent session id (issue 12: parent → children in the Temporal UI, `ZunoParentSession="ses_…"`). */
export const ZunoParentSession = defineSearchAttributeKey('ZunoParentSession', SearchAttributeType.KEYWORD);
/** The root session of a delegation tree (the session a person started); set on children and Councils it started. */
export const ZunoRootSession = defineSearchAttributeKey('ZunoRootSession', SearchAttributeType.KEYWORD);
/** A Council's status (`running`, `synthesizing`, `succeeded`, `failed`), upserted by the `council` workflow. */
export const ZunoCouncilStatus = defineSearchAttributeKey('ZunoCouncilStatus', SearchAttributeType.KEYWORD);

/** The agent a session runs as when none was chosen. */
export const DEFAULT_AGENT = 'build';

/** A Goal's status (core/goal/status.ts `GoalStatus`), upserted at every transition of the `goal` workflow. */
export const ZunoGoalStatus = defineSearchAttributeKey('ZunoGoalStatus', SearchAttributeType.KEYWORD);
