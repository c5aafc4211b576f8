import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { messageWithoutCode, ZunoError } from '../core/errors.js';
import { INSTALL_ROOT } from '../worker/install-root.js';

/**
 * Builds the `zuno` command line (commander). Each action resolves to the
 * process exit code; typed failures are printed by {@link main} as one line.
 *
 * Startup speed: building the program must load nothing but commander and
 * this file, so `zuno --help` and `zuno --version` stay fast and each command
 * pays only for what it uses. Register a command like this, importing its
 * module inside the action (eslint forbids static imports of command
 * modules, Temporal, Prisma… here; `import type` is fine):
 *
 * ```ts
 * program
 *   .command('name')
 *   .description('…')
 *   .action(async (opts) => {
 *     const { nameCommand } = await import('./commands/name.js');
 *     setExit(await nameCommand(opts));
 *   });
 * ```
 */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('zuno')
    .description('Zuno: a coding agent whose sessions run as durable Temporal workflows')
    .version(zunoVersion(), '-V, --version', 'print the Zuno version')
    .showHelpAfterError('(run with --help for usage)')
    // Usage errors read like every other error: `zuno: usage_error: unknown option '--frob'`.
    .configureOutput({ outputError: (str, write) => write(str.replace(/^error: /, 'zuno: usage_error: ')) })
    .addHelpText(
      'after',
      `
Environment:
  TEMPORAL_ADDRESS      use this Temporal server instead of the embedded dev server
  TEMPORAL_NAMESPACE    namespace (default from temporal.yaml, "default")
  DATABASE_URL          postgresql://… for the projection (default SQLite $ZUNO_HOME/zuno.db)
  ZUNO_HOME             Zuno's own state: projection, dev server, bundle cache, worker record (default ~/.zuno)
  ZUNO_TEMPORAL_CONFIG  path of temporal.yaml (default: $ZUNO_HOME/temporal.yaml, else the installation's)
  ZUNO_HOST_ID          this host's name for routing work to its workers (default: the hostname)
  ZUNO_CONFIG           path of zuno.json (providers, default model)
  ZUNO_PROGRESS_FIRST_MS
                        when stderr is not a terminal: ms before zuno run's first
                        "still running" line of a long tool call (default 30000)`,
    );

  program
    .command('run')
    .description('run one prompt as a session and print the final answer')
    .argument('<prompt>', 'what the agent should do; "-" reads it from standard input')
    .option('--dir <dir>', 'workspace directory (default: current directory)')
    .option('--model <provider/model>', 'model to use, e.g. openai/gpt-4.1 (default: zuno.json "model")')
    .option('--script <file>', 'serve scripted model replies from FILE through the local provider server (offline)')
    .option('--json', 'print one JSON event per line (NDJSON), ending with session.completed')
    .option('--config <file>', 'zuno.json to use')
    .option(
      '--session <id>',
      'continue this session: the prompt becomes its next turn (transcript and read files carry on)',
    )
    .option('-c, --continue', "continue this workspace's newest session")
    .addOption(new Option('--no-worker', 'do not start an in-process worker; rely on a running `zuno worker`'))
    .action(async (prompt: string, opts) => {
      const { promptFromStdin, runCommand } = await import('./commands/run.js');
      setExit(await runCommand(prompt === '-' ? await promptFromStdin(process.stdin) : prompt, opts));
    });

  program
    .command('worker')
    .description('run a standalone worker for session workflows and tool activities')
    .action(async () => {
      const { workerCommand } = await import('./commands/worker.js');
      setExit(await workerCommand());
    });

  const session = program.command('session').description('inspect and control sessions');
  session
    .command('show')
    .description('print a stored transcript with tool calls and outcomes')
    .argument('<id>', 'session id (ses_…)')
    .option('--json', 'print the transcript as JSON')
    .option('--full', 'print long texts, outputs and diffs whole (by default they are cut, with a note)')
    .action(async (id: string, opts) => {
      const { sessionShowCommand } = await import('./commands/session-show.js');
      await sessionShowCommand(id, opts);
      setExit(0);
    });

  session
    .command('list')
    .description("list the sessions in Zuno's home, newest activity first")
    .option(
      '--status <status>',
      'only sessions with this status (running, completed, failed, paused, blocked, interrupted, …)',
    )
    .option('--dir <dir>', 'only sessions of this workspace')
    .option('--limit <n>', 'at most this many (default 50)', parseLimit)
    .option('--json', 'print the sessions as a JSON array')
    .action(async (opts) => {
      const { sessionListCommand } = await import('./commands/session-list.js');
      setExit(await sessionListCommand(opts));
    });

  session
    .command('resume')
    .description('continue a paused session once its cause is fixed (e.g. the API key set)')
    .argument('<id>', 'session id (ses_…)')
    .option('--script <file>', 'a scripted session: serve its model replies from FILE again')
    .option('--model <provider/model>', 'resume on this model instead of the one the session used')
    .option('--config <file>', 'zuno.json to use')
    .option('--json', 'print one JSON event per line (NDJSON)')
    .addOption(new Option('--no-worker', 'do not start an in-process worker; rely on a running `zuno worker`'))
    .action(async (id: string, opts) => {
      const { sessionResumeCommand } = await import('./commands/session-resume.js');
      setExit(await sessionResumeCommand(id, opts));
    });

  session
    .command('interrupt')
    .description(
      'hard-interrupt the running turn: each running tool call gets 2 s to stop and report once the interrupt reaches it; calls that have not reported 3.5 s after the interrupt are recorded uncertain; with no turn running, stops background tasks',
    )
    .argument('<id>', 'session id (ses_…)')
    .option('--json', 'print the interrupt receipt as JSON')
    .action(async (id: string, opts) => {
      const { sessionInterruptCommand } = await import('./commands/session-interrupt.js');
      setExit(await sessionInterruptCommand(id, opts));
    });

  const dev = program.command('dev').description('the embedded Temporal dev server and local tools');
  dev
    .command('up')
    .description('start (or reuse) the embedded Temporal dev server')
    .action(async () => {
      const { devUpCommand } = await import('./commands/dev.js');
      setExit(await devUpCommand());
    });
  dev
    .command('down')
    .description('stop the embedded Temporal dev server')
    .action(async () => {
      const { devDownCommand } = await import('./commands/dev.js');
      setExit(await devDownCommand());
    });
  dev
    .command('status')
    .description('show whether the embedded dev server runs')
    .action(async () => {
      const { devStatusCommand } = await import('./commands/dev.js');
      setExit(devStatusCommand());
    });
  dev
    .command('provider')
    .description('serve a script of model replies on loopback (Chat Completions, Responses and Anthropic Messages SSE)')
    .requiredOption('--script <file>', 'script file (JSON or YAML)')
    .option('--port <port>', 'port on 127.0.0.1 (default: any free port)', parsePort)
    .action(async (opts) => {
      const { serveScriptCommand } = await import('./local-provider/serve.js');
      try {
        await serveScriptCommand(opts.script, { port: opts.port });
      } catch (err) {
        const code = (err as NodeJS.ErrnoException).code;
        if (code === 'EADDRINUSE' || code === 'EACCES') {
          throw new ZunoError('port_unavailable', `cannot listen on port ${opts.port}: ${code}`);
        }
        throw err;
      }
      setExit(0);
    });
  return program;
}

/** Parses `--limit` (1–1000). @throws InvalidArgumentError naming the bad value. */
function parseLimit(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n < 1 || n > 1000) throw new InvalidArgumentError(`"${value}" is not a count (1-1000)`);
  return n;
}

/** Parses a TCP port option (0–65535). @throws InvalidArgumentError naming the bad value. */
function parsePort(value: string): number {
  const n = Number(value);
  if (!/^\d+$/.test(value) || n > 65535) throw new InvalidArgumentError(`"${value}" is not a port number (0-65535)`);
  return n;
}

/**
 * Entry point: parses argv, runs the command, prints typed failures as
 * `zuno: <code>: <message>` (the code said once), through the process sink
 * so a status line on the terminal is cleared first.
 */
export async function main(argv: string[]): Promise<number> {
  // `zuno session show … | head`: the reader went away; that is the end of the output, not an error.
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (err.code === 'EPIPE') process.exit(0);
      throw err;
    });
  }
  let code = 0;
  const program = buildProgram((c) => {
    code = c;
  });
  program.exitOverride();
  try {
    await program.parseAsync(argv);
    return code;
  } catch (err) {
    const e = err as { code?: string; exitCode?: number };
    if (typeof e.code === 'string' && e.code.startsWith('commander.')) return e.exitCode ?? 1;
    // Loaded here, not at start-up: `--help` stays light; the sink clears a live status line first.
    const { processSink } = await import('./render.js');
    if (err instanceof ZunoError) {
      processSink.err(`zuno: ${err.code}: ${messageWithoutCode(err.message, err.code)}\n`);
      return err.code === 'interrupted' ? 130 : 1;
    }
    processSink.err(`zuno: unexpected error: ${(err as Error)?.stack ?? err}\n`);
    return 1;
  }
}

/** The version in Zuno's package.json (the installation's, wherever `zuno` runs from, sources or dist/). */
export function zunoVersion(): string {
  const pkg = JSON.parse(readFileSync(join(INSTALL_ROOT, 'package.json'), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
