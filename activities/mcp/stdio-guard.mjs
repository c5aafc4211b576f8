// @ts-check
/**
 * The stdio MCP server guard (issue 30): a small Node process between the
 * worker and one stdio MCP server, so the server never outlives the worker
 * that started it. Plain JavaScript so it starts with `node stdio-guard.mjs`.
 *
 * `node stdio-guard.mjs <command> [args…]`:
 * - starts the server with stdin, stdout and stderr inherited (the MCP
 *   JSON-RPC stream passes through untouched), in the worker's process group,
 *   so a signal to that group (a service manager stopping it, a terminal
 *   closing) reaches the server too;
 * - when its parent (the worker) is gone — SIGKILLed, crashed — it notices
 *   within half a second (its parent pid changes) and ends the server and
 *   everything it forked (found through /proc): SIGTERM, then SIGKILL 2 s
 *   later (many servers do not exit when stdin closes while they are busy);
 * - SIGTERM/SIGINT/SIGHUP to the guard end the server the same way;
 * - it exits with the server's exit code (127 when the command cannot be
 *   started: the reason is written to stderr, which Zuno shows as the
 *   server's own error).
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';

const [command, ...args] = process.argv.slice(2);
const parent = process.ppid;
if (!command) {
  process.stderr.write('stdio-guard: no command given\n');
  process.exit(2);
}
const child = spawn(command, args, { stdio: 'inherit' });
let ending = false;

/** `pid` and its descendants (Linux /proc; elsewhere `pid` alone). */
function tree(pid) {
  let children = [];
  try {
    children = readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8')
      .trim()
      .split(/\s+/)
      .filter(Boolean)
      .map(Number);
  } catch {
    // no /proc, or the process is gone
  }
  return [pid, ...children.flatMap(tree)];
}

/** Sends `signal` to the server and everything it forked. */
function signalTree(signal) {
  if (child.pid === undefined) return;
  for (const pid of tree(child.pid).reverse()) {
    try {
      process.kill(pid, signal);
    } catch {
      // gone already
    }
  }
}

/** Ends the server: SIGTERM now, SIGKILL and exit 2 s later. */
function end() {
  if (ending) return;
  ending = true;
  signalTree('SIGTERM');
  setTimeout(() => {
    signalTree('SIGKILL');
    process.exit(1);
  }, 2_000).unref();
}

child.on('error', (err) => {
  process.stderr.write(`${command}: ${err.message}\n`);
  process.exit(127);
});
child.on('exit', (code, signal) => {
  process.exit(code ?? (signal ? 1 : 0));
});
for (const s of /** @type {const} */ (['SIGTERM', 'SIGINT', 'SIGHUP'])) process.on(s, end);
setInterval(() => {
  if (process.ppid !== parent) end();
}, 500);
