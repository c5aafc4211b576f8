import { DefaultLogger, type LogLevel, Runtime } from '@temporalio/worker';

let installed = false;

/**
 * Installs the Temporal worker runtime once per process with a logger at
 * `level` writing one line per entry to stderr, so worker chatter never mixes
 * with `zuno run` output on stdout. Later calls are no-ops.
 */
export function installRuntime(level: LogLevel): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    logger: new DefaultLogger(level, (entry) => {
      process.stderr.write(`[temporal ${entry.level.toLowerCase()}] ${entry.message}\n`);
    }),
  });
}
