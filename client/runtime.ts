import { DefaultLogger, type LogLevel, Runtime } from '@temporalio/worker';

let installed = false;

/**
 * Installs the Temporal worker runtime once per process: the TS logger at
 * `level` writes one line per entry to stderr, the Rust core's own logs are
 * forwarded to it (so nothing of Temporal's reaches stdout, which belongs to
 * `zuno run`'s answer or NDJSON), and the runtime does NOT take over
 * SIGINT/SIGTERM: each command handles its signals itself. Later calls are no-ops.
 */
export function installRuntime(level: LogLevel): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    shutdownSignals: [],
    logger: new DefaultLogger(level, (entry) => {
      process.stderr.write(`[temporal ${entry.level.toLowerCase()}] ${entry.message}\n`);
    }),
    telemetryOptions: { logging: { filter: { core: level, other: level }, forward: {} } },
  });
}
