/**
 * What links a child session to its parent (DC1, DC22): carried in the
 * child's meta. Apart from core/delegation/contract.ts so the session's
 * meta can name it without importing the delegation contract, which itself
 * names the session's meta.
 */

/** What links a child session to the session that delegated to it (carried in {@link SessionMeta.delegation}). */
export interface DelegationLink {
  /** The session whose call started this one. */
  parentSessionId: string;
  /** The session a person started, at the top of the tree. */
  rootSessionId: string;
  /** 1 for a child of a root session (see `MAX_DELEGATION_DEPTH`, ./contract.ts). */
  depth: number;
  /** The parent's tool-call row (`tc_…`) that delegated, when a `task` did. */
  rowId?: string;
  /** A background delegation's job id (`job_<turn>_<step>_<position>`). */
  jobId?: string;
  /** A Council seat: its run, place and attempt. */
  seat?: {
    runId: string;
    index: number;
    of: number;
    attempt: number;
    /** Issue 32: the attempts a seat may take and the seats' hard deadline (Unix ms), for the seat's task context. */
    maxAttempts?: number;
    deadlineMs?: number;
  };
}
