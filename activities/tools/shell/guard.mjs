// @ts-check
/**
 * The shell guard (SH4, SH5): a small Node process between Zuno and the
 * command. Plain JavaScript so it starts with `node guard.mjs` (no loader).
 *
 * Protocol (see guard-run.ts):
 * - Zuno starts it detached (setsid) — or, sandboxed (SH10), bubblewrap starts
 *   it with `--new-session` — so the guard leads a new process group and
 *   session; the command and everything it forks stay in that group.
 * - stdin: one JSON line `{ file, args, cwd, env, nonce }`, then kept open.
 *   EOF on stdin means Zuno is gone: the whole group is killed.
 * - stdout/stderr: the capture file, inherited by the command as-is.
 * - fd 3: the status channel (not inherited by the command, so it cannot be
 *   forged). One JSON line: `{ "exitCode": n }`, `{ "signal": "SIGKILL" }`
 *   or `{ "guardFailed": true, "exitCode": 125|126|127, "message": … }`.
 * - On its own failure the guard also writes `zuno-guard[<nonce>]: <reason>`
 *   to the captured output: the line the reader looks for before it reads
 *   125 as the guard's (a command cannot know the nonce).
 * - When the command ends, the guard reports, then kills the whole group with
 *   SIGKILL — itself included — so forked grandchildren die with it.
 * - SIGTERM/SIGINT/SIGHUP to the group are ignored by the guard so that it
 *   outlives the command and reports how it ended.
 */
import { spawn } from 'node:child_process';
import { statSync, writeSync } from 'node:fs';

const STATUS_FD = 3;
let nonce = 'unknown';
let reported = false;
let started = false;

/** Kills the whole process group, the guard included. */
function killGroup() {
  try {
    process.kill(-process.pid, 'SIGKILL');
  } catch {
    // nothing left to kill, or no permission: exit below
  }
  process.exit(125);
}

/** @param {Record<string, unknown>} status */
function report(status) {
  if (reported) return;
  reported = true;
  try {
    writeSync(STATUS_FD, `${JSON.stringify(status)}\n`);
  } catch {
    // Zuno is gone; the group dies next
  }
}

/**
 * @param {number} code 125 (guard failure), 126 (cannot execute), 127 (not found)
 * @param {string} message
 */
function fail(code, message) {
  try {
    writeSync(2, `zuno-guard[${nonce}]: ${message}\n`);
  } catch {
    // the capture file is unwritable; the status channel still says so
  }
  report({ guardFailed: true, exitCode: code, message });
  killGroup();
}

/** @param {unknown} err */
function errorText(err) {
  if (err && typeof err === 'object' && 'code' in err && typeof err.code === 'string') return err.code;
  return err instanceof Error ? err.message : String(err);
}

/** @param {{ file: string, args: string[], cwd: string, env: Record<string, string>, nonce: string }} spec */
function start(spec) {
  started = true;
  nonce = spec.nonce;
  try {
    if (!statSync(spec.cwd).isDirectory()) return fail(125, `working directory is not a directory: ${spec.cwd}`);
  } catch (err) {
    return fail(125, `working directory is not usable: ${spec.cwd}: ${errorText(err)}`);
  }
  let child;
  try {
    child = spawn(spec.file, spec.args, { cwd: spec.cwd, env: spec.env, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch (err) {
    return fail(125, `could not start ${spec.file}: ${errorText(err)}`);
  }
  child.on('error', (err) => {
    const code = errorText(err);
    fail(
      code === 'ENOENT' ? 127 : code === 'EACCES' || code === 'ENOEXEC' ? 126 : 125,
      `could not start ${spec.file}: ${code}`,
    );
  });
  child.on('exit', (code, signal) => {
    report(signal ? { signal } : { exitCode: code ?? 125 });
    killGroup();
  });
}

process.on('uncaughtException', (err) => fail(125, `internal error: ${errorText(err)}`));
for (const sig of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) process.on(sig, () => {});

let buffered = '';
process.stdin.setEncoding('utf8');
process.stdin.on('data', (chunk) => {
  if (started) return;
  buffered += chunk;
  const nl = buffered.indexOf('\n');
  if (nl < 0) return;
  let spec;
  try {
    spec = JSON.parse(buffered.slice(0, nl));
  } catch (err) {
    started = true;
    return fail(125, `unreadable run spec: ${errorText(err)}`);
  }
  start(spec);
});
process.stdin.on('end', killGroup);
process.stdin.on('error', killGroup);
