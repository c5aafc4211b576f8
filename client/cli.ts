import { readFileSync } from 'node:fs';
import { Command, InvalidArgumentError, Option } from 'commander';
import { messageWithoutCode, ZunoError } from '../core/errors.js';
import { devDownCommand, devStatusCommand, devUpCommand } from './commands/dev.js';
import { promptFromStdin, runCommand } from './commands/run.js';
import { sessionInterruptCommand } from './commands/session-interrupt.js';
import { sessionShowCommand } from './commands/session-show.js';
import { workerCommand } from './commands/worker.js';
import { serveScriptCommand } from './local-provider/serve.js';
import { processSink } from './render.js';

/**
 * Builds the `zuno` command line (commander). Each action resolves to the
 * process exit code; typed failures are printed by {@link main} as one line.
 */
export function buildProgram(setExit: (code: number) => void): Command {
  const program = new Command('zuno')
    .description('Zuno: a coding agent whose sessions run as durable Temporal workflows')
    .version(zunoVersion(), '-V, --version', 'print the Zuno version')
    .showHelpAfterError('(run with --help for usage)')
    .addHelpText(
      'after',
      `
Environment:
  TEMPORAL_ADDRESS      use this Temporal server instead of the embedded dev server
  TEMPORAL_NAMESPACE    namespace (default from temporal.yaml, "default")
  DATABASE_URL          postgresql://… for the projection (default SQLite .zuno/zuno.db)
  ZUNO_HOME             directory holding .zuno/ state (default: current directory)
  ZUNO_TEMPORAL_CONFIG  path of temporal.yaml (default: ./temporal.yaml, else the installation's)
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
    .addOption(new Option('--no-worker', 'do not start an in-process worker; rely on a running `zuno worker`'))
    .action(async (prompt: string, opts) =>
      setExit(await runCommand(prompt === '-' ? await promptFromStdin(process.stdin) : prompt, opts)),
    );

  program
    .command('worker')
    .description('run a standalone worker for session workflows and tool activities')
    .action(async () => setExit(await workerCommand()));

  const session = program.command('session').description('inspect and control sessions');
  session
    .command('show')
    .description('print a stored transcript with tool calls and outcomes')
    .argument('<id>', 'session id (ses_…)')
    .option('--json', 'print the transcript as JSON')
    .action(async (id: string, opts) => {
      await sessionShowCommand(id, opts);
      setExit(0);
    });

  session
    .command('interrupt')
    .description(
      'hard-interrupt the running turn: each running tool call gets 2 s to stop and report once the interrupt reaches it; calls that have not reported 3.5 s after the interrupt are recorded uncertain; with no turn running, stops background tasks',
    )
    .argument('<id>', 'session id (ses_…)')
    .option('--json', 'print the interrupt receipt as JSON')
    .action(async (id: string, opts) => setExit(await sessionInterruptCommand(id, opts)));

  const dev = program.command('dev').description('the embedded Temporal dev server and local tools');
  dev
    .command('up')
    .description('start (or reuse) the embedded Temporal dev server')
    .action(async () => setExit(await devUpCommand()));
  dev
    .command('down')
    .description('stop the embedded Temporal dev server')
    .action(async () => setExit(await devDownCommand()));
  dev
    .command('status')
    .description('show whether the embedded dev server runs')
    .action(() => setExit(devStatusCommand()));
  dev
    .command('provider')
    .description('serve a script of model replies on loopback (Chat Completions, Responses and Anthropic Messages SSE)')
    .requiredOption('--script <file>', 'script file (JSON or YAML)')
    .option('--port <port>', 'port on 127.0.0.1 (default: any free port)', parsePort)
    .action(async (opts) => {
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
    if (err instanceof ZunoError) {
      processSink.err(`zuno: ${err.code}: ${messageWithoutCode(err.message, err.code)}\n`);
      return err.code === 'interrupted' ? 130 : 1;
    }
    processSink.err(`zuno: unexpected error: ${(err as Error)?.stack ?? err}\n`);
    return 1;
  }
}

/** The version in Zuno's package.json (the installation's, wherever `zuno` runs from). */
export function zunoVersion(): string {
  const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version?: string };
  return pkg.version ?? 'unknown';
}
