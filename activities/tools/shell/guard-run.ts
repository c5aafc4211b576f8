/**
 * Runs one command behind the guard (guard.mjs) in its own process group,
 * with cancellation and a hard time limit (SH4, SH5, TD10).
 *
 * Stopping (abort signal or time limit): SIGTERM to the whole group, a 2 s
 * cooperative window, then SIGKILL to the group. When the command ends on
 * its own the guard reports and kills the group itself, so a forked
 * grandchild never outlives the call.
 *
 * Sandboxed (SH10): bubblewrap runs the guard itself — `bwrap … --new-session
 * --info-fd 4 -- node guard.mjs` — so the guard is still the leader of the
 * command's group (bwrap's `--new-session`) and still the reporter, while
 * bwrap's own monitor process stays outside that group: a SIGTERM to the
 * group would kill the monitor at once (and, with `--die-with-parent`, the
 * command with it), losing the cooperative window and the command's own
 * status. The group id is the guard's pid, read from bwrap's info fd.
 */
import { spawn } from 'node:child_process';
import { writeSync } from 'node:fs';
import { sourceRelative } from '../../infra/install-root.js';
import type { ShellStop } from './types.js';

/** TD10: the cooperative window between SIGTERM and SIGKILL, in milliseconds. */
export const COOPERATIVE_WINDOW_MS = 2_000;

/** Path of the guard script (plain JavaScript, run from the source tree also by the compiled code). */
export const GUARD_PATH = sourceRelative(import.meta.url, './guard.mjs');

/** How the command ended, as the guard reported it. */
export type CommandStatus =
  | { kind: 'exited'; code: number }
  | { kind: 'signaled'; signal: string }
  /** The guard failed before or while starting the command: 125 itself, 126/127 the program could not start. */
  | { kind: 'guard_failed'; code: number; message: string };

/** What {@link runGuarded} needs. */
export interface GuardedSpec {
  /** Interpreter to run (name looked up in `env.PATH`, or a path). */
  file: string;
  args: string[];
  cwd: string;
  /** The command's complete environment (the guard itself runs with an empty one). */
  env: Record<string, string>;
  /** Secret token of this run; the guard's diagnostic line carries it. */
  nonce: string;
  /** File descriptor of the capture file: stdout and stderr of the command. */
  outFd: number;
  /** Hard limit in milliseconds. */
  timeoutMs: number;
  signal?: AbortSignal;
  /** Called once when the guard reports the command's end (before the group is gone). */
  onCommandExit?: (status: CommandStatus) => void;
  /** Called once with the guard's pid (= the process group id) right after it is spawned (sandboxed: once bwrap names it). */
  onStart?: (guardPid: number) => void;
  /** Run the guard inside bubblewrap: the helper and its options (without `--info-fd` and `--`). */
  sandbox?: { bwrap: string; args: string[] };
}

/** What happened to one guarded run. */
export interface GuardedRun {
  /** The guard's report; null when it ended without one (killed, crashed, forced stop). */
  status: CommandStatus | null;
  /** Set when the run was stopped by the abort signal or the time limit. */
  stop?: ShellStop;
}

/** The guard's diagnostic line marker for `nonce` (SH4: only the guard can write it). */
export function guardLineMarker(nonce: string): string {
  return `zuno-guard[${nonce}]:`;
}

function parseStatus(line: string): CommandStatus | null {
  try {
    const v = JSON.parse(line) as { exitCode?: unknown; signal?: unknown; guardFailed?: unknown; message?: unknown };
    if (v.guardFailed === true && typeof v.exitCode === 'number')
      return { kind: 'guard_failed', code: v.exitCode, message: typeof v.message === 'string' ? v.message : '' };
    if (typeof v.signal === 'string') return { kind: 'signaled', signal: v.signal };
    if (typeof v.exitCode === 'number') return { kind: 'exited', code: v.exitCode };
  } catch {
    // a torn line: treated as no report
  }
  return null;
}

/** The `child-pid` of bwrap's info JSON once it is complete, else undefined. */
function childPidOf(text: string): number | undefined {
  const end = text.indexOf('}');
  if (end < 0) return undefined;
  try {
    const pid = (JSON.parse(text.slice(0, end + 1)) as { 'child-pid'?: unknown })['child-pid'];
    return typeof pid === 'number' && Number.isInteger(pid) && pid > 0 ? pid : undefined;
  } catch {
    return undefined;
  }
}

/** How often a sandboxed command's process group is looked for until bwrap's child has made it. */
const GROUP_POLL_MS = 2;

/** True when process group `pgid` exists (a member can be signalled, or exists but belongs to someone else). */
function groupExists(pgid: number): boolean {
  try {
    process.kill(-pgid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

function killGroup(pgid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pgid, signal);
  } catch {
    // the group is already gone
  }
}

/**
 * Starts the guard, hands it the run spec and waits until it is gone.
 *
 * Never throws: a guard that cannot even be started writes its diagnostic
 * line into the capture file and is reported as a 125 guard failure.
 */
export function runGuarded(spec: GuardedSpec): Promise<GuardedRun> {
  return new Promise((resolve) => {
    let status: CommandStatus | null = null;
    let stop: ShellStop | undefined;
    let killTimer: NodeJS.Timeout | undefined;
    let settled = false;

    const guardFailedToStart = (message: string): void => {
      if (settled) return;
      settled = true;
      try {
        writeSync(spec.outFd, `${guardLineMarker(spec.nonce)} ${message}\n`);
      } catch {
        // the capture file is unusable; the status still says what happened
      }
      cleanup();
      resolve({ status: { kind: 'guard_failed', code: 125, message }, ...(stop ? { stop } : {}) });
    };

    let child: ReturnType<typeof spawn>;
    const box = spec.sandbox;
    try {
      child = box
        ? spawn(box.bwrap, [...box.args, '--info-fd', '4', '--', process.execPath, GUARD_PATH], {
            cwd: spec.cwd,
            detached: true,
            env: {},
            stdio: ['pipe', spec.outFd, spec.outFd, 'pipe', 'pipe'],
          })
        : spawn(process.execPath, [GUARD_PATH], {
            cwd: spec.cwd,
            detached: true,
            env: {},
            stdio: ['pipe', spec.outFd, spec.outFd, 'pipe'],
          });
    } catch (err) {
      guardFailedToStart(
        `could not start the ${box ? 'sandbox' : 'guard'}: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    // The command's process group: the guard's pid (sandboxed: once bwrap's info fd names it).
    let group = box ? undefined : child.pid;
    let pending: NodeJS.Signals | undefined;
    const signalGroup = (signal: NodeJS.Signals): void => {
      if (group !== undefined) return killGroup(group, signal);
      // Not known yet (bwrap is still setting up, a matter of milliseconds): sent as soon as it is.
      pending = signal;
    };
    if (group !== undefined) spec.onStart?.(group);
    // Sandboxed: the pid bwrap's info fd names, known before that process has called setsid.
    let sandboxPid: number | undefined;
    const announce = (pid: number): void => {
      if (group !== undefined) return;
      group = pid;
      spec.onStart?.(pid);
      if (pending) killGroup(pid, pending);
    };
    // bwrap writes the info fd before its child calls setsid (`--new-session`); until then a signal to the group
    // fails with ESRCH and would be lost, so the group is announced once it exists (a few milliseconds).
    const whenGroupExists = (pid: number): void => {
      if (settled || group !== undefined) return;
      if (groupExists(pid)) return announce(pid);
      setTimeout(() => whenGroupExists(pid), GROUP_POLL_MS);
    };
    if (box) {
      let info = '';
      const infoFd = child.stdio[4];
      infoFd?.on('data', (chunk: Buffer) => {
        if (sandboxPid !== undefined) return;
        info += chunk.toString('utf8');
        sandboxPid = childPidOf(info);
        if (sandboxPid !== undefined) whenGroupExists(sandboxPid);
      });
      infoFd?.on('error', () => {});
    }

    const requestStop = (reason: ShellStop['reason']): void => {
      if (stop || settled) return;
      stop = { reason, mode: 'cooperative', commandHadExited: status !== null };
      if (status !== null || child.pid === undefined) return; // the guard is already taking the group down
      signalGroup('SIGTERM');
      killTimer = setTimeout(() => {
        if (stop) stop.mode = 'forced';
        signalGroup('SIGKILL');
      }, COOPERATIVE_WINDOW_MS);
    };
    const onAbort = (): void => requestStop('cancelled');
    const timeoutTimer = setTimeout(() => requestStop('timeout'), spec.timeoutMs);
    spec.signal?.addEventListener('abort', onAbort, { once: true });

    function cleanup(): void {
      clearTimeout(timeoutTimer);
      if (killTimer) clearTimeout(killTimer);
      spec.signal?.removeEventListener('abort', onAbort);
    }

    let statusText = '';
    const channel = child.stdio[3];
    channel?.on('data', (chunk: Buffer) => {
      if (status !== null) return;
      statusText += chunk.toString('utf8');
      const nl = statusText.indexOf('\n');
      if (nl < 0) return;
      status = parseStatus(statusText.slice(0, nl));
      if (status !== null) spec.onCommandExit?.(status);
    });
    channel?.on('error', () => {});
    child.stdin?.on('error', () => {}); // EPIPE when the guard is already gone

    child.on('error', (err) => guardFailedToStart(`could not start the guard: ${err.message}`));
    child.on('close', (code) => {
      if (settled) return;
      // bwrap ended before it started the guard (a mount it could not make): the guard's own failure, 125.
      if (box && sandboxPid === undefined && status === null)
        return guardFailedToStart(
          `the sandbox (bubblewrap) could not start the command (bwrap exit ${code ?? 'signal'})`,
        );
      settled = true;
      cleanup();
      // A guard that died without reporting may leave the command running in
      // its group (which keeps the group id alive): stop it.
      const lastGroup = group ?? sandboxPid;
      if (status === null && lastGroup !== undefined) killGroup(lastGroup, 'SIGKILL');
      resolve(stop ? { status, stop } : { status });
    });

    if (spec.signal?.aborted) requestStop('cancelled');
    child.stdin?.write(
      `${JSON.stringify({ file: spec.file, args: spec.args, cwd: spec.cwd, env: spec.env, nonce: spec.nonce })}\n`,
    );
  });
}
