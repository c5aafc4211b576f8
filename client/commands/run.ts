import { realpathSync, statSync } from 'node:fs';
import { WorkflowUpdateFailedError } from '@temporalio/client';
import { ZunoError } from '../../core/errors.js';
import {
  DEFAULT_TASK_QUEUE,
  type InterruptReceipt,
  type SessionMeta,
  type SessionResult,
} from '../../core/session-contract.js';
import type { EventRow, ProjectionStore } from '../../activities/projection/types.js';
import { loadScript } from '../local-provider/script.js';
import { startLocalProvider } from '../local-provider/server.js';
import { connectTemporal, type Notify, openStore, resolvePaths } from '../context.js';
import { pendingActivitiesOf, type PendingActivitiesReader } from '../live-progress.js';
import { eventToJsonLine, HumanRenderer, isTerminalEvent, processSink, sessionEndLine, type Sink } from '../render.js';
import { installRuntime } from '../runtime.js';
import { interruptSession, newSessionId, startSession, titleOf } from '../session-start.js';
import { standaloneWorkerRunning } from '../worker-registry.js';
import { localProvider, loadZunoConfig, resolveModel } from '../zuno-config.js';
import { createZunoWorker } from '../../worker/worker.js';

/** Options of `zuno run`. */
export interface RunOptions {
  dir?: string;
  model?: string;
  script?: string;
  json?: boolean;
  /** false: never start an in-process worker (a standalone worker must serve the task queue). */
  worker?: boolean;
  config?: string;
}

/** Largest prompt read from standard input, in bytes (the session refuses more than 512 KiB anyway). */
const STDIN_PROMPT_MAX_BYTES = 1024 * 1024;

/**
 * `zuno run -`: the prompt is everything on standard input (UTF-8), as
 * written — a trailing newline is dropped.
 * @throws ZunoError `input_rejected` when standard input is a terminal, is
 *   empty (only white space), or holds more than 1 MiB.
 */
export async function promptFromStdin(stdin: NodeJS.ReadStream): Promise<string> {
  if (stdin.isTTY) {
    throw new ZunoError(
      'input_rejected',
      '`zuno run -` reads the prompt from standard input: pipe it in (echo "…" | zuno run -)',
    );
  }
  const chunks: Buffer[] = [];
  let bytes = 0;
  for await (const chunk of stdin) {
    const b = Buffer.isBuffer(chunk) ? chunk : Buffer.from(String(chunk));
    bytes += b.length;
    if (bytes > STDIN_PROMPT_MAX_BYTES) {
      throw new ZunoError(
        'input_rejected',
        `standard input holds more than ${STDIN_PROMPT_MAX_BYTES} bytes; put large material in a file`,
      );
    }
    chunks.push(b);
  }
  const text = Buffer.concat(chunks)
    .toString('utf8')
    .replace(/\r?\n$/, '');
  if (text.trim() === '')
    throw new ZunoError(
      'input_rejected',
      'standard input was empty or only white space: pipe the prompt into `zuno run -`',
    );
  return text;
}

/** Poll interval of the event tail, in ms. */
const TAIL_EVERY_MS = 60;

/**
 * `zuno run "<prompt>"`: starts a session workflow on Temporal (embedded dev
 * server unless configured), runs an in-process worker unless a standalone
 * one serves the task queue, shows progress from the stored events, and
 * resolves to the process exit code: 0 when the session completed, 1 when it
 * failed or paused (a one-line reason is printed), 130 when Ctrl-C interrupted it.
 * @throws ZunoError for set-up failures (config, Temporal, workspace, script, model).
 */
export async function runCommand(prompt: string, opts: RunOptions, sink: Sink = processSink): Promise<number> {
  // Ctrl-C (TD10): the first one hard-interrupts the running turn and keeps
  // following until the session has recorded how its calls ended; a second
  // one (or one before the session started) stops following at once. Either
  // way the exit code is 130 and the session stays durable in Temporal.
  const progress: RunProgress = { sessionId: null, interrupt: null, interrupting: false };
  let onSigint: (() => void) | undefined;
  const interrupted = new Promise<never>((_, reject) => {
    onSigint = () => {
      if (progress.interrupt && !progress.interrupting) {
        progress.interrupting = true;
        sink.err(
          `zuno: interrupting session ${progress.sessionId}: running calls get 2 s to stop, then are recorded uncertain (Ctrl-C again to stop following)\n`,
        );
        progress.interrupt().then(
          (r) => {
            if (r.backgroundCancelled.length > 0)
              sink.err(`zuno: stopped background task(s) ${r.backgroundCancelled.join(', ')}\n`);
            else if (!r.interrupted) sink.err('zuno: nothing was running\n');
          },
          (err: unknown) => reject(new ZunoError('interrupted', `could not interrupt: ${(err as Error).message}`)),
        );
        return;
      }
      reject(
        new ZunoError(
          'interrupted',
          progress.sessionId
            ? `stopped following session ${progress.sessionId}; it stays in Temporal and resumes when a worker runs (\`zuno worker\`)`
            : 'interrupted before the session started',
        ),
      );
    };
    process.on('SIGINT', onSigint);
  });
  const cleanups: (() => Promise<unknown>)[] = [];
  try {
    return await Promise.race([runSession(prompt, opts, sink, progress, cleanups), interrupted]);
  } finally {
    process.removeListener('SIGINT', onSigint!);
    for (const c of cleanups) await c().catch(() => undefined);
  }
}

/** What the run has reached, for the interrupt message. */
interface RunProgress {
  sessionId: string | null;
  /** Sends the TD10 hard interrupt, once the session has started. */
  interrupt: (() => Promise<InterruptReceipt>) | null;
  /** true once the first Ctrl-C asked for an interrupt. */
  interrupting: boolean;
}

async function runSession(
  prompt: string,
  opts: RunOptions,
  sink: Sink,
  progress: RunProgress,
  cleanups: (() => Promise<unknown>)[],
): Promise<number> {
  const notify: Notify = opts.json ? null : (line) => sink.err(`${line}\n`);
  // Everything that can be checked offline is checked before anything starts or is written.
  if (prompt.trim() === '') throw new ZunoError('input_rejected', 'the prompt is empty');
  // An empty --dir (say an unset "$PROJECT") is refused by resolveWorkspace rather than read as the current directory.
  const workspace = resolveWorkspace(opts.dir ?? process.cwd());
  const script = opts.script ? await loadScript(opts.script) : undefined;
  const zcfg = loadZunoConfig(workspace, opts.config);
  if (!script && !opts.model && !zcfg.model) {
    throw new ZunoError(
      'model_missing',
      'no model configured: pass --model provider/model (or set "model" in zuno.json), or --script FILE for the local provider',
    );
  }
  const configured = script ? undefined : resolveModel(zcfg, opts.model ?? zcfg.model!);
  const paths = resolvePaths();
  const temporal = await connectTemporal(paths, notify);
  cleanups.unshift(() => temporal.connection.close());
  {
    const store = await openStore(paths);
    cleanups.unshift(() => store.close());
    const taskQueue = temporal.cfg.taskQueue ?? DEFAULT_TASK_QUEUE;
    let resolved: ReturnType<typeof resolveModel>;
    if (configured) {
      resolved = configured;
    } else {
      const server = await startLocalProvider({ script: script! });
      cleanups.unshift(() => server.close());
      resolved = { provider: localProvider(server.url), model: 'scripted' };
    }
    if (
      opts.worker !== false &&
      !standaloneWorkerRunning(paths.stateDir, temporal.address, temporal.namespace, taskQueue)
    ) {
      // The in-process worker reads the key from this environment: a missing one is known now, before a session exists.
      const keyEnv = resolved.provider.apiKeyEnv;
      if (keyEnv !== undefined && !process.env[keyEnv]) {
        throw new ZunoError(
          'api_key_missing',
          `provider ${resolved.provider.id} reads its API key from ${keyEnv}, which is not set; export it (or run a \`zuno worker\` that has it)`,
        );
      }
      installRuntime('WARN', { modelFailuresReported: true });
      const { worker, close } = await createZunoWorker({
        address: temporal.address,
        namespace: temporal.namespace,
        taskQueue,
        store,
        stateDir: paths.stateDir,
      });
      const running = worker.run();
      cleanups.unshift(async () => {
        worker.shutdown();
        await running.catch(() => undefined);
        await close();
      });
    } else if (opts.worker === false) {
      notify?.(`--no-worker: waiting for a \`zuno worker\` on task queue ${taskQueue} at ${temporal.address}`);
    }
    const meta: SessionMeta = {
      sessionId: newSessionId(),
      workspace,
      provider: resolved.provider,
      model: resolved.model,
      title: titleOf(prompt),
      toolConcurrency: zcfg.concurrency.tool_calls,
      activityDefaults: temporal.cfg.activities,
    };
    progress.sessionId = meta.sessionId;
    let started: Awaited<ReturnType<typeof startSession>>;
    try {
      started = await startSession(temporal.client, taskQueue, meta, { text: prompt }, { exitWhenIdle: true });
    } catch (err) {
      if (err instanceof WorkflowUpdateFailedError) {
        throw new ZunoError('input_rejected', `the session rejected the input: ${err.cause?.message ?? err.message}`);
      }
      throw err;
    }
    notify?.(`session ${meta.sessionId} started (workflow ${started.workflowId})`);
    progress.interrupt = () => interruptSession(temporal.client, meta.sessionId, 'cli:ctrl-c');
    const tools = pendingActivitiesOf(temporal.client, started.workflowId);
    const result = await followSession(store, meta.sessionId, started.result(), opts.json === true, sink, tools);
    if (result.status === 'interrupted') {
      sink.err(
        `zuno: interrupted: session ${meta.sessionId} interrupted; \`zuno session show ${meta.sessionId}\` lists how each call ended\n`,
      );
      return 130;
    }
    if (result.status !== 'completed') {
      sink.err(sessionEndLine(meta.sessionId, result.status, result.error));
      return 1;
    }
    return 0;
  }
}

/**
 * Tails the session's stored events until the workflow finished and its
 * terminal event was shown; renders them as NDJSON or for humans (with the
 * live progress of long tool calls read through `pendingActivities`).
 */
async function followSession(
  store: ProjectionStore,
  sessionId: string,
  resultPromise: Promise<SessionResult>,
  json: boolean,
  sink: Sink,
  pendingActivities?: PendingActivitiesReader,
): Promise<SessionResult> {
  const human = new HumanRenderer(sink, process.stdout.isTTY === true, pendingActivities ? { pendingActivities } : {});
  let result: SessionResult | undefined;
  let failure: unknown;
  resultPromise.then(
    (r) => {
      result = r;
    },
    (err) => {
      failure = err;
    },
  );
  let after = 0;
  let sawTerminal = false;
  for (;;) {
    // The terminal event is stored before the workflow completes, so a poll
    // that starts after the result arrived sees everything.
    const finishedBeforePoll = result;
    const events: EventRow[] = await store.listEvents(sessionId, after, 500);
    for (const e of events) {
      after = e.seq;
      if (json) sink.out(eventToJsonLine(e));
      else human.render(e);
      if (isTerminalEvent(e.type)) sawTerminal = true;
    }
    if (failure) throw failure;
    if (finishedBeforePoll && (sawTerminal || events.length === 0)) return finishedBeforePoll;
    if (events.length < 500) await new Promise((r) => setTimeout(r, TAIL_EVERY_MS));
  }
}

/** The workspace as an absolute real path. @throws ZunoError `workspace_invalid`. */
function resolveWorkspace(dir: string): string {
  if (dir.trim() === '') {
    throw new ZunoError('workspace_invalid', '--dir is empty (an unset variable?): name the workspace directory');
  }
  try {
    const real = realpathSync(dir);
    if (!statSync(real).isDirectory()) throw new Error('not a directory');
    return real;
  } catch (err) {
    throw new ZunoError('workspace_invalid', `--dir ${dir} is not a usable directory: ${(err as Error).message}`);
  }
}
