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
import { spawn, type ChildProcess } from 'node:child_process';
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
  return new Promise((resolve) => new GuardRun(spec, resolve).start());
}

/** Starts the guard process (inside bubblewrap when sandboxed): stdio 3 the status channel, 4 bwrap's info fd. */
function spawnGuard(spec: GuardedSpec): ChildProcess {
  const box = spec.sandbox;
  return box
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
}

/** One guarded run, from spawning the guard to its `close`: the command's status, the stop asked for, the timers. */
class GuardRun {
  private status: CommandStatus | null = null;
  private stop: ShellStop | undefined;
  private killTimer: NodeJS.Timeout | undefined;
  private timeoutTimer: NodeJS.Timeout | undefined;
  private settled = false;
  private child!: ChildProcess;
  /** The command's process group: the guard's pid (sandboxed: once bwrap's info fd names it). */
  private group: number | undefined;
  /** A signal asked for before the group was known (bwrap still setting up, a matter of milliseconds). */
  private pending: NodeJS.Signals | undefined;
  /** Sandboxed: the pid bwrap's info fd names, known before that process has called setsid. */
  private sandboxPid: number | undefined;
  private readonly onAbort = (): void => this.requestStop('cancelled');

  constructor(
    private readonly spec: GuardedSpec,
    private readonly resolve: (run: GuardedRun) => void,
  ) {}

  start(): void {
    const { spec } = this;
    const box = spec.sandbox;
    try {
      this.child = spawnGuard(spec);
    } catch (err) {
      this.guardFailedToStart(
        `could not start the ${box ? 'sandbox' : 'guard'}: ${err instanceof Error ? err.message : String(err)}`,
      );
      return;
    }
    this.group = box ? undefined : this.child.pid;
    if (this.group !== undefined) spec.onStart?.(this.group);
    if (box) this.watchInfoFd();
    this.timeoutTimer = setTimeout(() => this.requestStop('timeout'), spec.timeoutMs);
    spec.signal?.addEventListener('abort', this.onAbort, { once: true });
    this.watchStatus();
    this.child.stdin?.on('error', () => {}); // EPIPE when the guard is already gone
    this.child.on('error', (err) => this.guardFailedToStart(`could not start the guard: ${err.message}`));
    this.child.on('close', (code) => this.closed(code));
    if (spec.signal?.aborted) this.requestStop('cancelled');
    this.child.stdin?.write(
      `${JSON.stringify({ file: spec.file, args: spec.args, cwd: spec.cwd, env: spec.env, nonce: spec.nonce })}\n`,
    );
  }

  private guardFailedToStart(message: string): void {
    if (this.settled) return;
    this.settled = true;
    try {
      writeSync(this.spec.outFd, `${guardLineMarker(this.spec.nonce)} ${message}\n`);
    } catch {
      // the capture file is unusable; the status still says what happened
    }
    this.cleanup();
    const stop = this.stop;
    this.resolve({ status: { kind: 'guard_failed', code: 125, message }, ...(stop ? { stop } : {}) });
  }

  private signalGroup(signal: NodeJS.Signals): void {
    if (this.group !== undefined) return killGroup(this.group, signal);
    // Not known yet (bwrap is still setting up, a matter of milliseconds): sent as soon as it is.
    this.pending = signal;
  }

  private announce(pid: number): void {
    if (this.group !== undefined) return;
    this.group = pid;
    this.spec.onStart?.(pid);
    if (this.pending) killGroup(pid, this.pending);
  }

  // bwrap writes the info fd before its child calls setsid (`--new-session`); until then a signal to the group
  // fails with ESRCH and would be lost, so the group is announced once it exists (a few milliseconds).
  private whenGroupExists(pid: number): void {
    if (this.settled || this.group !== undefined) return;
    if (groupExists(pid)) return this.announce(pid);
    setTimeout(() => this.whenGroupExists(pid), GROUP_POLL_MS);
  }

  private watchInfoFd(): void {
    let info = '';
    const infoFd = this.child.stdio[4];
    infoFd?.on('data', (chunk: Buffer) => {
      if (this.sandboxPid !== undefined) return;
      info += chunk.toString('utf8');
      this.sandboxPid = childPidOf(info);
      if (this.sandboxPid !== undefined) this.whenGroupExists(this.sandboxPid);
    });
    infoFd?.on('error', () => {});
  }

  private requestStop(reason: ShellStop['reason']): void {
    if (this.stop || this.settled) return;
    this.stop = { reason, mode: 'cooperative', commandHadExited: this.status !== null };
    if (this.status !== null || this.child.pid === undefined) return; // the guard is already taking the group down
    this.signalGroup('SIGTERM');
    this.killTimer = setTimeout(() => {
      if (this.stop) this.stop.mode = 'forced';
      this.signalGroup('SIGKILL');
    }, COOPERATIVE_WINDOW_MS);
  }

  private cleanup(): void {
    clearTimeout(this.timeoutTimer);
    if (this.killTimer) clearTimeout(this.killTimer);
    this.spec.signal?.removeEventListener('abort', this.onAbort);
  }

  private watchStatus(): void {
    let statusText = '';
    const channel = this.child.stdio[3];
    channel?.on('data', (chunk: Buffer) => {
      if (this.status !== null) return;
      statusText += chunk.toString('utf8');
      const nl = statusText.indexOf('\n');
      if (nl < 0) return;
      this.status = parseStatus(statusText.slice(0, nl));
      if (this.status !== null) this.spec.onCommandExit?.(this.status);
    });
    channel?.on('error', () => {});
  }

  private closed(code: number | null): void {
    if (this.settled) return;
    const { status, stop } = this;
    // bwrap ended before it started the guard (a mount it could not make): the guard's own failure, 125.
    if (this.spec.sandbox && this.sandboxPid === undefined && status === null)
      return this.guardFailedToStart(
        `the sandbox (bubblewrap) could not start the command (bwrap exit ${code ?? 'signal'})`,
      );
    this.settled = true;
    this.cleanup();
    // A guard that died without reporting may leave the command running in
    // its group (which keeps the group id alive): stop it.
    const lastGroup = this.group ?? this.sandboxPid;
    if (status === null && lastGroup !== undefined) killGroup(lastGroup, 'SIGKILL');
    this.resolve(stop ? { status, stop } : { status });
  }
}
