/**
 * The `runtime.environment` segment (issue 32): where and under what rules
 * the agent works — workspace, date and time zone, OS, shell, sandbox and
 * network, permission mode, git state, the programs found on the worker's
 * PATH. Rendered from facts the worker gathers once per turn
 * (activities/session/system/environment-facts.ts). Pure.
 */
import type { NetworkSessionConfig } from '../network.js';
import type { SandboxPolicy } from '../sandbox.js';

/** What the worker observed about the workspace's host. */
export interface HostFacts {
  /** `linux 6.8.0`, from os.platform() and os.release(). */
  os: string;
  /** IANA time zone of the worker, e.g. `UTC`, `Europe/Berlin`. */
  timeZone: string;
  /** The date in that zone, `YYYY-MM-DD`. */
  date: string;
  /** Programs found on PATH, from a fixed list (git, rg, gh, node, npm, python3, …). */
  programs: string[];
  /** null: the workspace is not inside a git work tree; `changedFiles` -1: git status did not answer. */
  git: { branch: string; changedFiles: number } | null;
}

/** The session settings the segment states. */
export interface EnvironmentSettings {
  workspace: string;
  sandbox: SandboxPolicy;
  /** The session's permission mode; `none`: no policy (standard with no rules — nothing waits for approval). */
  permissionMode: string;
  network?: NetworkSessionConfig;
  /** Whether the request offers a command-running tool (shell, programs and the sandbox are stated only then). */
  runsCommands: boolean;
  /** Whether the request offers a web tool (what it may reach is stated only then). */
  readsWeb: boolean;
}

/**
 * The segment's text: one `- key: value` line per fact. The date is a day,
 * not a time, so the segment changes at most daily within a turn's facts
 * (a stable prompt prefix); git state is as of the turn's first request.
 */
export function renderEnvironment(s: EnvironmentSettings, h: HostFacts): string {
  const git = h.git
    ? `branch ${h.git.branch}, ${changes(h.git.changedFiles)} (as of this turn's start)`
    : 'not a git repository';
  const lines = [
    '# Environment',
    `- Workspace: ${s.workspace} (tool paths are relative to it)`,
    `- Date: ${h.date} (time zone ${h.timeZone})`,
    `- OS: ${h.os}`,
    ...(s.runsCommands
      ? [
          `- Shell: bash`,
          `- Programs on PATH: ${h.programs.join(', ') || 'none of the usual ones'}`,
          `- Sandbox: ${sandboxLine(s.sandbox)}`,
        ]
      : []),
    ...(s.readsWeb ? [`- Web access from tools: ${networkLine(s.network)}`] : []),
    `- Permissions: ${PERMISSION_WORDS[s.permissionMode] ?? s.permissionMode}`,
    `- Git: ${git}`,
  ];
  return lines.join('\n');
}

function changes(n: number): string {
  return n < 0 ? 'changes unknown (git status did not answer)' : n === 0 ? 'clean' : `${n} changed or untracked files`;
}

/** What each permission mode means for the agent, in plain words. */
const PERMISSION_WORDS: Readonly<Record<string, string>> = {
  none: 'standard with no rules (no call waits for approval)',
  standard: 'standard (a call the rules mark "ask" waits for a person\'s approval; a denied call is blocked)',
  strict: "strict (commands and writes wait for a person's approval unless a rule allows them)",
  allow_all: 'allow_all (calls run without approval; deny rules still block)',
};

function sandboxLine(p: SandboxPolicy): string {
  const mode =
    p.mode === 'read-only'
      ? 'commands may not write files'
      : p.mode === 'workspace-write'
        ? "commands may write only inside the workspace (with its repository's git directories) and the temp dir"
        : 'commands are not confined';
  return `${p.mode} (${mode}); command network ${p.network === 'allow' ? 'allowed' : 'denied'}`;
}

function networkLine(n: NetworkSessionConfig | undefined): string {
  const priv = n?.allowPrivate.length ? `, plus the private addresses ${n.allowPrivate.join(', ')}` : '';
  return `public addresses only${priv}`;
}
