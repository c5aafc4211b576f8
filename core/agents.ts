/**
 * The agent roster as data (issue 12 item 1, DC8, DC22 SEED-GAP "the target
 * roster"; decisions in docs/delegation.md). Each role names its positive
 * responsibilities, its negative delegation boundaries, the tools it may use
 * (an allowlist: a session's catalog is the intersection of its role's list
 * and its parent's catalog, DC2/DC9 — nothing widens) and the structured
 * output it is expected to end with. Deterministic: read by the session
 * workflow (catalogs, depth), modelStep (the role's prompt) and the CLI
 * (`zuno run --agent`).
 */

/** How a role is meant to be used. */
export type AgentMode = 'primary' | 'subagent' | 'all';

/** What a role's final answer must be. */
export type AgentOutput = 'free_text' | 'task_report' | 'council_report';

/** One agent role. */
export interface AgentRole {
  name: string;
  /** `primary`: a session a person starts; `subagent`: only a delegation's child; `all`: both. */
  mode: AgentMode;
  /** One line for `--help` and listings. */
  description: string;
  /** What the role is responsible for (positive responsibilities, DC8). */
  responsibilities: readonly string[];
  /** What the role must never delegate or do (negative delegation boundaries, DC8). */
  boundaries: readonly string[];
  /** The tools the role may use, by name (allowlist; intersected with the parent's catalog). */
  tools: readonly string[];
  /** The role only reads: no tool that changes the workspace is in its catalog. */
  readOnly: boolean;
  /** The structured output expected at the end (docs/delegation.md "Reports"). */
  output: AgentOutput;
}

/** Tools that only read the workspace and the session's own state. */
const READ_TOOLS = ['read', 'glob', 'grep', 'tool_search'] as const;
/** Work-state tools (a session's own Plan and Todo; they change no file of the workspace). */
const WORK_TOOLS = ['plan_get', 'plan_update', 'todo_get', 'todo_update'] as const;
/** Tools that change the workspace or run commands. */
const CHANGE_TOOLS = ['write', 'apply_patch', 'shell', 'bg', 'report_write'] as const;
/** The delegation family (DC14): `task`, `job`, `council_run`. */
const DELEGATION_TOOLS = ['task', 'job', 'council_run'] as const;
/**
 * Web tools through the guarded network client (issue 31, NW5: ReadOnly
 * and Safe; `web_search` offered only where the session's `network`
 * settings configure a backend). Not a Council reviewer's: a
 * reviewer judges the diff in front of it, not pages an attacker may write.
 */
const WEB_TOOLS = ['webfetch', 'web_search'] as const;
/** Tools that reach the person: a child never asks the user (DC20). */
export const USER_FACING_TOOLS: readonly string[] = ['question', 'question_async'];
/** Tools bound to the session a Goal drives: never in a child's catalog (a child has no Goal). */
const GOAL_TOOLS = ['goal_get', 'goal_update', 'goal_request_input'] as const;

const reviewer = (name: string, focus: string, description: string): AgentRole => ({
  name,
  mode: 'subagent',
  description,
  responsibilities: [
    `Review the change for ${focus}, reading the diff and the code around it.`,
    'Return evidence-backed findings first, each with a file and line, then explicit unknowns.',
  ],
  boundaries: [
    'Never change a file, run a command or delegate.',
    'Never review outside your focus to fill the report; say what you did not check.',
  ],
  tools: [...READ_TOOLS],
  readOnly: true,
  output: 'council_report',
});

/** The built-in roles by name (DC8: build, plan, deep, orchestrator; explore and the Council's reviewers). */
export const AGENT_ROLES: Readonly<Record<string, AgentRole>> = {
  build: {
    name: 'build',
    mode: 'all',
    description: 'end-to-end delivery: inspect, change, verify (the default)',
    responsibilities: [
      'Deliver the objective end to end: inspect, change the code, run the checks, report with evidence.',
      'Delegate a bounded sub-task only when it is independent and clearly specified.',
    ],
    boundaries: [
      'Never hand the whole objective to a child.',
      'Never delegate a decision that needs the user; ask the user yourself.',
    ],
    tools: [
      ...READ_TOOLS,
      ...WEB_TOOLS,
      ...CHANGE_TOOLS,
      ...WORK_TOOLS,
      ...DELEGATION_TOOLS,
      ...USER_FACING_TOOLS,
      ...GOAL_TOOLS,
    ],
    readOnly: false,
    output: 'free_text',
  },
  plan: {
    name: 'plan',
    mode: 'all',
    description: 'read-only planning: inspect the code and write a plan, change nothing',
    responsibilities: [
      'Inspect the code and produce a concrete, ordered plan with the files each step touches.',
      'Name the risks and the checks that would prove each step.',
    ],
    boundaries: ['Never change a file or run a command.', 'Never delegate.'],
    // The user-facing tools serve a plan a person started; a delegated plan never gets them (catalogFor).
    tools: [...READ_TOOLS, ...WEB_TOOLS, ...WORK_TOOLS, ...USER_FACING_TOOLS],
    readOnly: true,
    output: 'task_report',
  },
  explore: {
    name: 'explore',
    mode: 'subagent',
    description: 'read-only investigation: find where and how something is done',
    responsibilities: [
      'Find the files, symbols and call paths the objective asks about, quickly.',
      'Report what you found with file and line references, and what you could not find.',
    ],
    boundaries: ['Never change a file or run a command.', 'Never delegate.'],
    tools: [...READ_TOOLS, ...WEB_TOOLS],
    readOnly: true,
    output: 'task_report',
  },
  deep: {
    name: 'deep',
    mode: 'all',
    description: 'difficult cross-module implementation; may delegate bounded parts',
    responsibilities: [
      'Carry a difficult, cross-module change to the end with evidence.',
      'Delegate only clearly bounded parts, within your own authority and the depth limit.',
    ],
    boundaries: [
      'Never recursively hand off the whole original objective.',
      'Never widen a child beyond your own tools or permissions.',
    ],
    tools: [...READ_TOOLS, ...WEB_TOOLS, ...CHANGE_TOOLS, ...WORK_TOOLS, ...DELEGATION_TOOLS, ...USER_FACING_TOOLS],
    readOnly: false,
    output: 'task_report',
  },
  'correctness-review': reviewer(
    'correctness-review',
    'correctness: logic errors, broken edge cases, wrong results',
    'Council seat: reviews a change for correctness',
  ),
  'security-review': reviewer(
    'security-review',
    'security: injection, unsafe input handling, secrets, permissions',
    'Council seat: reviews a change for security',
  ),
  'tests-review': reviewer(
    'tests-review',
    'tests: missing or weak tests for what the change does',
    'Council seat: reviews a change for its tests',
  ),
};

/** The role a session runs as when none was chosen. */
export const DEFAULT_AGENT_NAME = 'build';

/** Names of the roles a person can start a session with (`zuno run --agent`). */
export function primaryAgents(): string[] {
  return Object.values(AGENT_ROLES)
    .filter((r) => r.mode !== 'subagent')
    .map((r) => r.name);
}

/** Names of the roles a `task` may delegate to. */
export function delegableAgents(): string[] {
  return Object.values(AGENT_ROLES)
    .filter((r) => r.mode !== 'primary')
    .map((r) => r.name);
}

/** The role named `name`, or undefined. */
export function agentRole(name: string | undefined): AgentRole | undefined {
  const n = name ?? DEFAULT_AGENT_NAME;
  return Object.prototype.hasOwnProperty.call(AGENT_ROLES, n) ? AGENT_ROLES[n] : undefined;
}

/**
 * The tool catalog of a session running as `role` under a parent catalog
 * (DC2, DC9): the role's allowlist intersected with `parent` (absent: every
 * declared tool), in `all` order. A child (`child: true`) never gets the
 * user-facing tools (DC20) nor the Goal tools; `session_message` does not
 * exist in this build, so there is nothing else to strip (SE5).
 * @param all every declared tool name, in registry order.
 */
export function catalogFor(
  role: AgentRole,
  all: readonly string[],
  parent: readonly string[] | undefined,
  child: boolean,
): string[] {
  const allowed = new Set(role.tools);
  const ceiling = parent ? new Set(parent) : null;
  return all.filter(
    (t) =>
      allowed.has(t) &&
      (ceiling === null || ceiling.has(t)) &&
      !(child && (USER_FACING_TOOLS.includes(t) || (GOAL_TOOLS as readonly string[]).includes(t))),
  );
}

/** The role's part of the system prompt: who it is, what it does, what it never does, how it reports. */
export function rolePrompt(role: AgentRole): string {
  const lines = [
    `You are running as the "${role.name}" agent: ${role.description}.`,
    ...role.responsibilities.map((r) => `- ${r}`),
    'Boundaries:',
    ...role.boundaries.map((b) => `- ${b}`),
  ];
  if (role.output === 'task_report')
    lines.push(
      'End with a report: what you found or did, the evidence (files, lines, command results), and what remains unknown.',
    );
  return lines.join('\n');
}
