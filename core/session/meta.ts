/**
 * What a session is (SE1): its frozen description (`SessionMeta`), its worker
 * route, the session workflow's input and the compact state it carries across
 * continue-as-new. Small payloads only (DESIGN.md "Where data lives"): ids,
 * statuses, counts — content stays in the projection.
 */
import type { CompactionSettings, ContextWindow } from '../compaction/settings.js';
import type { ActivityDefaults } from '../activity-defaults.js';
import type { DelegationLink } from '../delegation/link.js';
import type { CarriedGoalLink, SessionGoalBinding } from '../goal/link.js';
import type { PermissionPolicy, SessionGrant } from '../permission/types.js';
import type { ProviderConfig } from '../provider-config.js';
import type { CarriedQuestions } from '../question-contract.js';
import type { SandboxPolicy } from '../sandbox.js';
import type { McpSessionConfig } from '../mcp/types.js';
import type { NetworkSessionConfig } from '../network.js';
import type { AdmissionReceipt, AdmittedInput } from './inbox.js';
import type { TurnOutcome } from './outcome.js';

/** Frozen description of a session, carried in the workflow input. */
export interface SessionMeta {
  sessionId: string;
  /** Absolute workspace root on the worker host. */
  workspace: string;
  provider: ProviderConfig;
  model: string;
  /** One-line title (first prompt, shortened). */
  title: string;
  /** TD6 `concurrency.tool_calls`, 1..64 (default 8). */
  toolConcurrency: number;
  activityDefaults: ActivityDefaults;
  /** The agent role this session runs as (search attribute `ZunoAgent`); absent in sessions started before it existed: `build`. */
  agent?: string;
  /**
   * Where the session's activities run (DESIGN.md §1: work routed to the host
   * that owns the workspace). Absent in sessions started before routing
   * existed: their activities run on the workflow's own task queue.
   */
  route?: SessionRoute;
  /** The Goal that drives this session (`goal/<goalId>`, DESIGN.md §3); absent for ordinary sessions. */
  goal?: SessionGoalBinding;
  /** The session's permission policy (TD2, TD7; docs/permissions.md); absent in sessions started before it existed: every call is admitted. */
  permission?: PermissionPolicy;
  /**
   * What the session's shell commands can reach (SH10, SB1), resolved from
   * `zuno.json` at start; handed to every tool and background activity.
   * Absent in sessions started before the sandbox existed: the auto default
   * (`DEFAULT_SANDBOX_POLICY`).
   */
  sandbox?: SandboxPolicy;
  /**
   * The tools the session may call (DC2, DC9: a child's catalog is its
   * role's allowlist within its parent's; a session started with `--agent`
   * has its role's). Absent: its role's allowlist (`build`: every tool).
   */
  tools?: string[];
  /** A child session (issue 12): who delegated to it and how deep it is. Absent for a session a person started. */
  delegation?: DelegationLink;
  /**
   * The model's context window (zuno.json `models`, else the built-in table);
   * absent: unknown — no proactive compaction (CP6), a provider's
   * context-limit error is still recovered from (CP8).
   */
  context?: ContextWindow;
  /** zuno.json `compaction` resolved (absent: COMPACTION_DEFAULTS). */
  compaction?: CompactionSettings;
  /** zuno.json `mcp` resolved at start (issue 30; docs/mcp.md); absent: no MCP servers. */
  mcp?: McpSessionConfig;
  /** zuno.json `network` resolved at start (issue 31; docs/web.md); absent: no private address allowed, no search backend. */
  network?: NetworkSessionConfig;
}

/**
 * The worker route of a session: every activity of the session (model
 * steps, tool calls, background commands, projection writes) is scheduled
 * on `taskQueue`, which only workers of `host` poll — the workspace's files
 * and the projection are on that host. Workflow tasks stay on the shared
 * workflow task queue (any Zuno worker can run them: they touch no files).
 */
export interface SessionRoute {
  /** Host identity of the workspace's owner: `ZUNO_HOST_ID`, else the hostname. */
  host: string;
  /**
   * `<base>/host/<host>` — served by `zuno worker` on that host, for every
   * workspace there; or `<base>/host/<host>/session/<sessionId>` — served only
   * by the in-process worker of the `zuno` command driving this session.
   */
  taskQueue: string;
  /** `worker`: a standalone `zuno worker` serves it; `run`: the in-process worker of a `zuno run`/`resume`. */
  servedBy: 'worker' | 'run';
}

/** Input of the session workflow (also the continue-as-new carrier). */
export interface SessionWorkflowInput {
  meta: SessionMeta;
  /** Complete the workflow once idle (no pending input) after a final answer; `zuno run` sets true. */
  exitWhenIdle: boolean;
  /** Compact state carried across continue-as-new. */
  carried?: CarriedState;
  /**
   * A new run of a session whose earlier run closed (`zuno run --session`,
   * `--continue`): `carried` comes from the projection, and the input that
   * reopened it arrives with the start (update-with-start).
   */
  reopened?: boolean;
}

/** Compact state carried across continue-as-new. */
export interface CarriedState {
  nextTurn: number;
  nextInputSeq: number;
  pending: AdmittedInput[];
  /**
   * Runs recorded before the client-id table existed: clientMessageId →
   * receipt, the newest 256. Read once into {@link CarriedState.clientIds}.
   */
  seenClientIds: [string, AdmissionReceipt][];
  /** SE2 client-id table for the session's life, compact entries (see workflows/client-ids.ts). */
  clientIds?: string[];
  /**
   * Update id → receipt of the newest inputs admitted by the run that
   * continued-as-new: an Update the server delivers again to this run
   * (temporalio/temporal#6375) returns its receipt instead of being admitted twice.
   */
  recentUpdates?: [string, AdmissionReceipt][];
  lastFinalText: string | null;
  /** How the last turn ended (absent before the first turn, and in runs recorded before it existed). */
  lastOutcome?: TurnOutcome;
  /** A Goal-bound session: what it knows of its Goal. */
  goal?: CarriedGoalLink;
  /** Session-wide approval grants (`approve_session`), kept across continue-as-new and reopening. */
  grants?: SessionGrant[];
  /** Open questions (QU1) and their applied answer/snooze commands, kept across continue-as-new. */
  questions?: CarriedQuestions;
}

/** Task queue default (temporal.yaml `taskQueue`). */
export const DEFAULT_TASK_QUEUE = 'zuno';
