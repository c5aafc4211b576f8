import { DefaultLogger, type LogEntry, type LogLevel, Runtime } from '@temporalio/worker';
import { RETRYABLE_BY_CODE } from '../core/provider-error-codes.js';
import { processSink } from './render.js';

let installed = false;

/** What the command installing the runtime reports itself, so its log does not say it again. */
export interface RuntimeLogOptions {
  /**
   * true in `zuno run`: a model step that failed with a provider error is
   * shown by the run (its retry notice, the closing `zuno:` line), so its
   * `Activity failed` warning is left out. A standalone worker keeps it.
   */
  modelFailuresReported?: boolean;
  /** Also receives every WARN and ERROR line written (the host worker service keeps the last one in its record). */
  onProblem?: (line: string) => void;
  /**
   * true in a command that follows its work (client/temporal-outage.ts says
   * `Temporal unreachable, retrying…` once): the worker's own complaints that
   * the server does not answer — one per retried poll or heartbeat, hundreds
   * a minute — are left out. A standalone worker keeps them.
   */
  outagesReported?: boolean;
}

/**
 * Installs the Temporal worker runtime once per process: the TS logger at
 * `level` writes one line per entry to stderr, the Rust core's own logs are
 * forwarded to it (so nothing of Temporal's reaches stdout, which belongs to
 * `zuno run`'s answer or NDJSON), and the runtime does NOT take over
 * SIGINT/SIGTERM: each command handles its signals itself. Later calls are no-ops.
 */
export function installRuntime(level: LogLevel, opts: RuntimeLogOptions = {}): void {
  if (installed) return;
  installed = true;
  Runtime.install({
    shutdownSignals: [],
    logger: new DefaultLogger(level, (entry) => {
      const line = logLine(entry, opts);
      // Through the process sink: a status line on the terminal is cleared first.
      if (line !== null) processSink.err(`${line}\n`);
      if (line !== null && (entry.level === 'WARN' || entry.level === 'ERROR')) opts.onProblem?.(line);
    }),
    telemetryOptions: { logging: { filter: { core: level, other: level }, forward: {} } },
  });
}

/**
 * One stderr line for a Temporal log entry: `[temporal warn] Activity failed
 * workflowId=… activityType=… attempt=… error="…"`; null for a session
 * workflow's own "Workflow failed" — a failed, paused or blocked session is
 * reported by Zuno itself (the `zuno:` line, its events, its Temporal status)
 * — and, with `modelFailuresReported`, for a model step's provider failure;
 * null for the notice that a routed worker's halves poll only workflows or only activities;
 * with `outagesReported`, null for the core's retries against an unreachable server.
 */
export function logLine(entry: LogEntry, opts: RuntimeLogOptions = {}): string | null {
  if (entry.message === 'Workflow failed' && entry.meta?.workflowType === 'sessionWorkflow') return null;
  // A routed worker pair is one workflow-only and one activity-only Temporal worker, on purpose.
  if (/^No (activities|workflows) registered, not polling/.test(entry.message)) return null;
  if (opts.modelFailuresReported && isProviderFailureOfModelStep(entry)) return null;
  if (opts.outagesReported && isUnreachableRetry(entry)) return null;
  return `[temporal ${entry.level.toLowerCase()}] ${entry.message}${formatLogMeta(entry.meta)}`;
}

/** The core's notice that a poll or heartbeat to an unreachable server is retried (or was given up). */
function isUnreachableRetry(entry: LogEntry): boolean {
  if (!/^(gRPC call \w+ retried \d+ times|Error when recording heartbeat)/.test(entry.message)) return false;
  return /Unavailable|tcp connect error|Connection refused/i.test(
    `${entry.message} ${JSON.stringify(entry.meta ?? {})}`,
  );
}

/** Failure types of a modelStep that a provider error decides (activities/session/retry-window.ts). */
const PROVIDER_FAILURE_TYPES: ReadonlySet<string> = new Set([
  ...Object.keys(RETRYABLE_BY_CODE),
  'provider_retry_deadline',
]);

/** An `Activity failed` entry of `modelStep` whose error is a typed provider failure. */
function isProviderFailureOfModelStep(entry: LogEntry): boolean {
  if (entry.message !== 'Activity failed' || entry.meta?.activityType !== 'modelStep') return false;
  const err = (entry.meta.error ?? entry.meta.failure) as { type?: unknown } | null | undefined;
  return typeof err?.type === 'string' && PROVIDER_FAILURE_TYPES.has(err.type);
}

/** Metadata keys worth a log line, in print order (Temporal's log attributes). */
const META_KEYS = ['workflowId', 'workflowType', 'activityType', 'activityId', 'attempt', 'taskQueue'] as const;

/**
 * Renders a Temporal log entry's metadata as ` key=value …` on one line:
 * workflow id, activity type, attempt and the error's message (type and
 * first line), so `Activity failed` says which activity failed and why.
 * Values are single-lined and bounded to 300 characters. Empty when nothing is known.
 */
export function formatLogMeta(meta: Record<string, unknown> | undefined): string {
  if (!meta) return '';
  const parts: string[] = [];
  for (const k of META_KEYS)
    if (meta[k] !== undefined && meta[k] !== null) parts.push(`${k}=${oneLine(String(meta[k]))}`);
  const err = meta.error ?? meta.failure;
  if (err !== undefined && err !== null) {
    const e = err as { name?: string; type?: string; message?: string };
    const what = typeof err === 'object' ? `${e.type ?? e.name ?? 'Error'}: ${e.message ?? ''}` : String(err);
    parts.push(`error=${JSON.stringify(oneLine(what))}`);
  }
  return parts.length > 0 ? ` ${parts.join(' ')}` : '';
}

function oneLine(s: string): string {
  const flat = s.replace(/\s+/g, ' ').trim();
  return flat.length <= 300 ? flat : `${flat.slice(0, 299)}…`;
}
