import { Command, InvalidArgumentError, Option } from 'commander';
import { messageWithoutCode, ZunoError } from '../core/errors.js';
import { AGENT_ROLES, primaryAgents } from '../core/agents.js';
import type { GoalCheckFlag } from './goal-input.js';
import { zunoVersion } from './version.js';

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
// eslint-disable-next-line max-lines-per-function -- the command table: one declaration per command, nothing else
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
  ZUNO_HOST_ID          this host's name for routing work to its workers (default: the deployment
                        file's host, else the hostname)
  ZUNO_DEPLOYMENT       path of this home's deployment file (default $ZUNO_HOME/deployment.yaml):
                        Temporal target, task queue, projection, host id — see zuno doctor
  ZUNO_CONFIG           path of zuno.json (providers, default model)
  ZUNO_DEBUG=1          print the stack after an error line (an "unexpected error" is a bug in zuno)
  ZUNO_TEMPORAL_OUTAGE_MS
                        how long a command following a session, goal or council keeps
                        retrying an unreachable Temporal before it gives up (default 300000)
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
    .option('--agent <role>', 'the agent role of a new session (default build; roles below)')
    .addOption(new Option('--no-worker', 'start no worker; rely on a running `zuno worker`'))
    .addOption(
      new Option(
        '--in-process',
        'serve the work from a worker inside this command (it stops with it) unless a host worker already runs',
      ),
    )
    .addHelpText('after', `\nAgent roles (--agent):\n${agentHelpLines()}`)
    .action(async (prompt: string, opts) => {
      const { promptFromStdin, runCommand } = await import('./commands/run.js');
      setExit(await runCommand(prompt === '-' ? await promptFromStdin(process.stdin) : prompt, opts));
    });

  const worker = program
    .command('worker')
    .description(
      "this host's worker: it runs every session, Goal and Council of this host; commands start it in the background when they need it",
    );
  worker
    .command('run', { isDefault: true })
    .description('run the worker in the foreground (Ctrl-C stops it); `zuno worker` alone does the same')
    .addOption(new Option('--service', 'run as the background service (logs to $ZUNO_HOME/worker.log)').hideHelp())
    .option(
      '--take-over-host <id>',
      "move host id <id> (this worker's own) to this machine and home when another machine holds it (recorded)",
    )
    .action(async (opts: { service?: boolean; takeOverHost?: string }) => {
      const { workerCommand } = await import('./commands/worker.js');
      setExit(await workerCommand(opts));
    });
  worker
    .command('start')
    .description('start the host worker in the background if it is not running, then print its status')
    .option('--json', 'print the status as JSON')
    .option(
      '--take-over-host <id>',
      'move host id <id> (its own) to this machine and home when another machine holds it (recorded)',
    )
    .action(async (opts) => {
      const { workerStartCommand } = await import('./commands/worker-manage.js');
      setExit(await workerStartCommand(opts));
    });
  worker
    .command('stop')
    .description('stop the host worker (running calls get up to 30 s); its work waits in Temporal until one runs again')
    .option('--json', 'print the result as JSON')
    .action(async (opts) => {
      const { workerStopCommand } = await import('./commands/worker-manage.js');
      setExit(await workerStopCommand(opts));
    });
  worker
    .command('status')
    .description(
      'pid, since, version and build (current or not), queues, sessions served, last error (exit 3 when not running)',
    )
    .option('--json', 'print the status as JSON')
    .action(async (opts) => {
      const { workerStatusCommand } = await import('./commands/worker-manage.js');
      setExit(await workerStatusCommand(opts));
    });
  worker
    .command('promote')
    .description(
      "make this installation's build (or --build-id) the current version: workflows move to it at their next task",
    )
    .option('--build-id <id>', 'promote this build instead (e.g. to roll back to one a worker still runs)')
    .option('--json', 'print the result as JSON')
    .action(async (opts) => {
      const { workerPromoteCommand } = await import('./commands/worker-promote.js');
      setExit(await workerPromoteCommand(opts));
    });
  worker
    .command('logs')
    .description("print the host worker's log (Temporal's warnings go there, not to your terminal)")
    .option('-n, --lines <n>', 'the last N lines (default 50)', parseLimit)
    .option('-f, --follow', 'keep printing new lines until Ctrl-C')
    .action(async (opts) => {
      const { workerLogsCommand } = await import('./commands/worker-manage.js');
      setExit(await workerLogsCommand(opts));
    });
  worker
    .command('unit')
    .description('print a systemd user unit that keeps the host worker running across logins and reboots')
    .action(async () => {
      const { workerUnitCommand } = await import('./commands/worker-manage.js');
      setExit(workerUnitCommand());
    });

  program
    .command('doctor')
    .description(
      'print the deployment this process resolved (Temporal, task queue, projection, host id, each with its source) and check it; exit 1 when a check fails',
    )
    .option('--json', 'print the report as JSON')
    .action(async (opts) => {
      const { doctorCommand } = await import('./commands/doctor.js');
      setExit(await doctorCommand(opts));
    });

  const session = program.command('session').description('inspect and control sessions');
  session
    .command('show')
    .description('print a stored transcript with tool calls and outcomes')
    .argument('<id>', 'session id (ses_…)')
    .option('--json', 'print the transcript as JSON')
    .option('--full', 'print long texts, outputs and diffs whole (by default they are cut, with a note)')
    .option(
      '--prompt [turn.step]',
      'print the system segments a request carried, as stored before it was sent (default: the newest request)',
    )
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
    .addOption(new Option('--no-worker', 'start no worker; rely on a running `zuno worker`'))
    .addOption(
      new Option(
        '--in-process',
        'serve the work from a worker inside this command (it stops with it) unless a host worker already runs',
      ),
    )
    .action(async (id: string, opts) => {
      const { sessionResumeCommand } = await import('./commands/session-resume.js');
      setExit(await sessionResumeCommand(id, opts));
    });

  session
    .command('follow')
    .description(
      "follow a session (one whose terminal went away, a Goal's, a Council seat, a child) to the end of its turn; Ctrl-C leaves it running",
    )
    .argument('<id>', 'session id (ses_…)')
    .option('--json', 'print one JSON event per line (NDJSON)')
    .action(async (id: string, opts) => {
      const { sessionFollowCommand } = await import('./commands/session-follow.js');
      setExit(await sessionFollowCommand(id, opts));
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

  session
    .command('compact')
    .description(
      "summarize the session's earlier conversation now, whatever zuno.json compaction.auto says: runs between turns (a running turn ends first) on the host that serves the session; Ctrl-C leaves the request with the session",
    )
    .argument('<id>', 'session id (ses_…)')
    .option('--json', 'print the compaction receipt as JSON')
    .action(async (id: string, opts) => {
      const { sessionCompactCommand } = await import('./commands/session-compact.js');
      setExit(await sessionCompactCommand(id, opts));
    });

  const approvals = program
    .command('approvals')
    .description('calls waiting for your decision (permission rules that ask, strict mode): list, approve, deny');
  approvals
    .command('list')
    .description('list the approvals waiting for a decision, oldest first (child sessions included, with their parent)')
    .option('--session <id>', 'only this session and the sessions it delegated to')
    .option('--json', 'print the approvals as a JSON array')
    .action(async (opts) => {
      const { approvalsListCommand } = await import('./commands/approvals.js');
      setExit(await approvalsListCommand(opts));
    });
  for (const verb of ['approve', 'deny'] as const) {
    const cmd = approvals
      .command(verb)
      .description(
        verb === 'approve'
          ? 'let a waiting call run (once; with --session-wide also this exact command — the full text shown — or the --pattern you type, for the rest of the session)'
          : 'refuse a waiting call; the model sees the refusal and your message',
      )
      .argument('<id>', 'approval id (ap_…), as approvals list shows it')
      .option(
        '--session <id>',
        'the session of the approval, or one it delegated from (needed when several sessions have one with this id)',
      )
      .option('--json', 'print the decision as JSON');
    if (verb === 'approve')
      cmd
        .option('--session-wide', 'also approve later calls of the same tool with exactly this text in this session')
        .option(
          '--pattern <glob>',
          'with --session-wide: cover the calls whose whole text matches this glob (* any run, ? one character) instead; shown back and confirmed before it is stored',
        )
        .option('--yes', 'with --pattern: store it without asking (needed when stdin is not a terminal)');
    else cmd.option('--message <text>', 'what the model is told with the refusal (at most 2000 characters)');
    cmd.action(async (id: string, opts) => {
      const { approvalsDecideCommand } = await import('./commands/approvals.js');
      setExit(await approvalsDecideCommand(verb, id, opts));
    });
  }

  const questions = program
    .command('questions')
    .description("the model's clarifying questions (question, question_async): list, answer, snooze");
  questions
    .command('list')
    .description('list the open questions (one row per item) and answers not yet delivered, oldest first')
    .option('--session <id>', 'only this session')
    .option('--json', 'print the questions as a JSON array')
    .action(async (opts) => {
      const { questionsListCommand } = await import('./commands/questions.js');
      setExit(await questionsListCommand(opts));
    });
  questions
    .command('answer')
    .description(
      'answer items of a question in a session that is still open; the complete answer reaches the model as a message (a closed `zuno run` session: answer with `zuno run --session S "…"`)',
    )
    .argument('<id>', 'question id (q_…), as questions list shows it')
    .option('--session <id>', 'the session of the question (needed when several sessions have one with this id)')
    .option(
      '--item <itemId=text>',
      'an answer, e.g. --item qi_1=main (repeat for more items)',
      (v: string, all: string[] = []) => [...all, v],
    )
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts) => {
      const { questionsActCommand } = await import('./commands/questions.js');
      setExit(await questionsActCommand('answer', id, opts));
    });
  questions
    .command('snooze')
    .description("pause a question's 120 s auto-defer timer (you are answering it)")
    .argument('<id>', 'question id (q_…)')
    .option('--session <id>', 'the session of the question')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts) => {
      const { questionsActCommand } = await import('./commands/questions.js');
      setExit(await questionsActCommand('snooze', id, opts));
    });

  const goal = program
    .command('goal')
    .description('goals: an objective Zuno keeps working on, turn after turn, until it is met, paused or out of budget')
    // Before a subcommand parses its options: a --check belongs to a criterion of this command line only.
    .hook('preSubcommand', () => {
      lastCriterion = null;
    })
    .addHelpText(
      'after',
      `
Exit codes of goal start, resume and answer (they follow the goal until it stops):
  0    the goal completed
  1    it paused, blocked, ran out of budget or was cancelled (the reason and the next step are printed)
  130  Ctrl-C: the goal is paused and its running turn interrupted; zuno goal resume <id> goes on`,
    );
  goal
    .command('start')
    .description('start a goal and its session, and follow it until it completes, pauses, blocks or runs out of budget')
    .argument('<objective>', 'what the goal should achieve (at most 4000 characters)')
    .option('--dir <dir>', 'workspace directory (default: current directory)')
    .option('--model <provider/model>', 'model to use, e.g. openai/gpt-4.1 (default: zuno.json "model")')
    .option('--script <file>', 'serve scripted model replies from FILE through the local provider server (offline)')
    .option(
      '--token-budget <n>',
      'tokens the goal may spend in all (default: zuno.json goal.default_token_budget, else no limit)',
    )
    .option('--turn-budget <n>', 'tokens one turn may spend; a turn that reaches it pauses the goal')
    .option('--tool-call-budget <n>', 'tool calls the goal may make in all')
    .option('--time-budget <duration>', 'wall time the goal may run, like 90m or 2h30m (1s to 30d)')
    .option('--criterion <text>', 'a completion criterion (repeatable)', criterionFlag('criterion'))
    .option(
      '--evidence-criterion <text>',
      'a criterion only a stored, passing, authoritative shell receipt satisfies (repeatable)',
      criterionFlag('evidenceCriterion'),
    )
    .option(
      '--check <command>',
      'after a --criterion: the shell command that owns it; only a passing, fresh receipt of exactly that command satisfies it',
      checkFlag,
    )
    .option(
      '--watch <url>',
      'wait until URL shows --until before the first turn: checks on a timer, no model tokens while waiting (docs/web.md)',
    )
    .option('--until <condition>', 'with --watch: status=200, regex:PATTERN, json:PATH or json:PATH=VALUE')
    .option('--every <duration>', 'with --watch: time between checks, like 30s or 5m (default 5m)')
    .option('--watch-timeout <duration>', 'with --watch: give up after this long, like 6h or 2d (default 24h)')
    .option('--config <file>', 'zuno.json to use')
    .option('--json', 'print one JSON event per line (NDJSON), ending with goal.completed, goal.paused, …')
    .addOption(
      new Option(
        '--in-process',
        'serve the work from a worker inside this command (it stops with it) unless a host worker already runs',
      ),
    )
    .action(async (objective: string, opts) => {
      const { goalStartCommand } = await import('./commands/goal-start.js');
      setExit(await goalStartCommand(objective, opts));
    });
  goal
    .command('list')
    .description("list the goals in Zuno's home, newest activity first")
    .option(
      '--status <status>',
      'only goals with this status (active, backoff, waiting_background, waiting_watch, paused, blocked, budget_limited, completed, cancelled)',
    )
    .option('--limit <n>', 'at most this many (default 50)', parseLimit)
    .option('--json', 'print the goals as a JSON array')
    .action(async (opts) => {
      const { goalListCommand } = await import('./commands/goal-list.js');
      setExit(await goalListCommand(opts));
    });
  goal
    .command('show')
    .description('print a goal: objective, status and reason, budgets used and left, criteria with evidence, turns')
    .argument('<id>', 'goal id (goal_…)')
    .option('--json', 'print the goal as JSON (with --follow: the event stream, NDJSON)')
    .option('--follow', 'follow a goal at work until it stops (exit codes as goal start); Ctrl-C leaves it running')
    .action(async (id: string, opts) => {
      const { goalShowCommand } = await import('./commands/goal-show.js');
      setExit(await goalShowCommand(id, opts));
    });
  goal
    .command('pause')
    .description('stop a goal from starting more turns (a running turn ends normally)')
    .argument('<id>', 'goal id (goal_…)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts) => {
      const { goalPauseCommand } = await import('./commands/goal-control.js');
      setExit(await goalPauseCommand(id, opts));
    });
  goal
    .command('compact')
    .description("summarize the goal session's earlier conversation now (as zuno session compact)")
    .argument('<id>', 'goal id (goal_…)')
    .option('--json', 'print the compaction receipt as JSON')
    .action(async (id: string, opts) => {
      const { goalCompactCommand } = await import('./commands/session-compact.js');
      setExit(await goalCompactCommand(id, opts));
    });
  goal
    .command('resume')
    .description(
      'let a paused goal go on and follow it; one paused on an unknown outcome asks Resume goal / Keep paused',
    )
    .argument('<id>', 'goal id (goal_…)')
    .option(
      '--choice <choice>',
      "resume (Resume goal) or keep-paused (Keep paused); required off a terminal when a call's outcome is unknown",
    )
    .option('--script <file>', 'a scripted goal: serve its model replies from FILE again')
    .option('--model <provider/model>', 'resume on this model instead of the one the goal used')
    .option('--config <file>', 'zuno.json to use')
    .option('--json', 'print one JSON event per line (NDJSON), ending with goal.<status>')
    .addOption(
      new Option(
        '--in-process',
        'serve the work from a worker inside this command (it stops with it) unless a host worker already runs',
      ),
    )
    .action(async (id: string, opts) => {
      const { goalResumeCommand } = await import('./commands/goal-resume.js');
      setExit(await goalResumeCommand(id, opts));
    });
  goal
    .command('answer')
    .description('answer the question a goal paused on, and follow it as it goes on')
    .argument('<id>', 'goal id (goal_…)')
    .argument('<text>', 'the answer')
    .option('--config <file>', 'zuno.json to use')
    .option('--json', 'print one JSON event per line (NDJSON), ending with goal.<status>')
    .action(async (id: string, text: string, opts) => {
      const { goalAnswerCommand } = await import('./commands/goal-resume.js');
      setExit(await goalAnswerCommand(id, text, opts));
    });
  goal
    .command('budgets')
    .description('set budgets of a goal (the others stay); a goal stopped by its budget can then be resumed')
    .argument('<id>', 'goal id (goal_…)')
    .option('--token-budget <n>', 'tokens the goal may spend in all')
    .option('--turn-budget <n>', 'tokens one turn may spend')
    .option('--tool-call-budget <n>', 'tool calls the goal may make in all')
    .option('--time-budget <duration>', 'wall time the goal may run since it started, like 90m or 2h30m')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts) => {
      const { goalBudgetsCommand } = await import('./commands/goal-control.js');
      setExit(await goalBudgetsCommand(id, opts));
    });
  goal
    .command('cancel')
    .description('end a goal for good (a running turn ends normally; nothing more starts)')
    .argument('<id>', 'goal id (goal_…)')
    .option('--json', 'print the result as JSON')
    .action(async (id: string, opts) => {
      const { goalCancelCommand } = await import('./commands/goal-control.js');
      setExit(await goalCancelCommand(id, opts));
    });

  const council = program
    .command('council')
    .description('councils: three read-only reviewer seats answer one question about a change, then one synthesis')
    .addHelpText(
      'after',
      `
The only preset, balanced-review, is frozen: 600000 ms in all; the seats (correctness-review,
security-review, tests-review) share one 540000 ms deadline; 60000 ms are kept for the synthesis;
2 valid seat reports are needed; a seat whose report is invalid retries once. See docs/council.md.
Exit codes of council run: 0 the council succeeded, 1 it failed (quorum missed, synthesis failed), 130 Ctrl-C (it is cancelled).`,
    );
  const councilRun = council
    .command('run')
    .description('run a council in the foreground: seat settlements as they happen, then the seats and the synthesis')
    .argument('<question>', 'what the seats should answer (at most 4000 characters)')
    .option('--preset <name>', 'the council preset (only balanced-review)', 'balanced-review')
    .option('--diff <git range>', 'the change to review, e.g. HEAD~1..HEAD (written for the seats to read)')
    .option('--dir <dir>', 'workspace directory, a git repository for --diff (default: current directory)')
    .option('--model <provider/model>', 'model of the seats and the synthesis (default: zuno.json "model")')
    .option('--script <file>', 'serve scripted model replies from FILE through the local provider server (offline)')
    .option('--config <file>', 'zuno.json to use')
    .option('--json', 'print {council, result} as JSON at the end instead of the table')
    .addOption(
      new Option(
        '--in-process',
        'serve the work from a worker inside this command (it stops with it) unless a host worker already runs',
      ),
    );
  // Budget flags are parsed only to be refused by name: the preset is frozen (DC23).
  for (const f of [
    'deadline-ms',
    'total-ms',
    'timeout-ms',
    'synthesis-ms',
    'seat-deadline-ms',
    'seats',
    'quorum',
    'retries',
    'time-budget',
    'token-budget',
  ])
    councilRun.addOption(new Option(`--${f} <value>`).hideHelp());
  councilRun.action(async (question: string, opts) => {
    const { councilRunCommand } = await import('./commands/council-run.js');
    setExit(await councilRunCommand(question, opts));
  });
  council
    .command('show')
    .description('print a council: its seats (status, report validity, attempts, usage) and the synthesis')
    .argument('<runId>', 'council run id (cr_…)')
    .option('--json', 'print the council row as JSON (with --follow: {council, result} at the end)')
    .option('--follow', 'follow a council at work to its end, then print it; Ctrl-C leaves it running')
    .action(async (id: string, opts) => {
      const { councilShowCommand } = await import('./commands/council-show.js');
      setExit(await councilShowCommand(id, opts));
    });

  program
    .command('acp')
    .description(
      'speak the Agent Client Protocol on stdin/stdout, for editors (Zed and others) that start zuno as their agent',
    )
    .option('--script <file>', "serve new sessions' model replies from FILE through the local provider (offline)")
    .option('--model <provider/model>', 'model of new sessions, e.g. openai/gpt-4.1 (default: zuno.json "model")')
    .option('--agent <role>', 'the agent role of new sessions (default build; roles below)')
    .option('--config <file>', "zuno.json to use instead of the workspace's")
    .addHelpText(
      'after',
      `
Standard output carries only JSON-RPC (one message per line); notes go to stderr.
Sessions are ordinary Zuno sessions served by this host's worker service: they are
listed by \`zuno session list\`, and closing the editor does not stop them
(session/load picks them up). Methods, errors and decisions: docs/acp.md.

Agent roles (--agent):
${agentHelpLines()}`,
    )
    .action(async (opts) => {
      const { acpCommand } = await import('./commands/acp.js');
      setExit(await acpCommand(opts));
    });

  program
    .command('serve')
    .description(
      "serve the HTTP API and SSE event streams of Zuno's home (sessions, approvals, questions, Goals, Councils; docs/http.md); every request needs the home's token",
    )
    .option('--port <n>', 'TCP port (0: any free port; default 9866)', parsePort)
    .option(
      '--host <host>',
      'address to listen on (default 127.0.0.1, loopback only); another address must be asked for here and is printed as a warning',
    )
    .option('--script <file>', 'serve scripted model replies from FILE for sessions created over HTTP (demos, tests)')
    .option('--print-token', 'print the token ($ZUNO_HOME/http-token, created with mode 0600 if missing) and exit')
    .addHelpText(
      'after',
      `
Authentication: Authorization: Bearer <token>, or Basic auth with the token as the password.
The OpenAPI document is at GET /doc; SSE streams at /events and /sessions/<id>/events.`,
    )
    .action(async (opts) => {
      const { httpServeCommand } = await import('./commands/http-serve.js');
      setExit(await httpServeCommand(opts));
    });

  const mcp = program.command('mcp').description('MCP servers as tool sources (zuno.json "mcp"; docs/mcp.md)');
  mcp
    .command('list')
    .description(
      'connect to each configured MCP server and list it: connected with its tools, failed with its own error, or configured (disabled)',
    )
    .option('--dir <dir>', 'workspace whose zuno.json is read; stdio servers start there (default: current directory)')
    .option('--config <file>', 'zuno.json to use')
    .option('--json', 'print {"servers": [...]} with machine names (effect ReadOnly/SideEffecting, replay Safe/Never)')
    .addHelpText(
      'after',
      `
Templates in env and headers (\${NAME}) are resolved from this command's environment.
Exit code 0 even when a server failed; a bad zuno.json exits 1 naming the key.`,
    )
    .action(async (opts) => {
      const { mcpListCommand } = await import('./commands/mcp-list.js');
      setExit(await mcpListCommand(opts));
    });

  const prompt = program.command('prompt').description('what the model is told (docs/prompts.md)');
  prompt
    .command('show')
    .description(
      "print the exact system segments a session's first request would carry: ids, sources, sizes, token estimates",
    )
    .option(
      '--agent <role>',
      'the role: build (default), plan, deep, explore, or a Council reviewer — correctness-review, security-review, tests-review (shown as seat 1)',
    )
    .option('--goal [objective]', 'the session a Goal drives (build), with this objective (default: a placeholder)')
    .option('--dir <dir>', 'workspace whose zuno.json, rule files and git state are read (default: current directory)')
    .option('--config <file>', 'zuno.json to use')
    .option('--model <provider/model>', 'the model whose provider family places the text (default: zuno.json "model")')
    .option('--json', 'print {segments: [{id, source, chars, sha256, tokens, text}], tools, ...}')
    .addHelpText(
      'after',
      `
Assembled by the worker's own code from this machine's view of the workspace: a worker on
another host sees its own date, programs and git state. MCP tools appear once connected.
Every request records the same list as a session.prompt event (zuno session show --json).`,
    )
    .action(async (opts) => {
      const { promptShowCommand } = await import('./commands/prompt-show.js');
      setExit(await promptShowCommand(opts));
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
    .description(
      'show whether the embedded dev server runs — or, in external mode, which Temporal server Zuno uses and whether it answers',
    )
    .option('--json', 'print the status as JSON')
    .action(async (opts: { json?: boolean }) => {
      const { devStatusCommand } = await import('./commands/dev.js');
      setExit(await devStatusCommand(opts));
    });
  dev
    .command('provider')
    .description('serve a script of model replies on loopback (Chat Completions, Responses and Anthropic Messages SSE)')
    .requiredOption('--script <file>', 'script file (JSON or YAML)')
    .option('--port <port>', 'port on 127.0.0.1 (default: any free port)', parsePort)
    .action(async (opts) => {
      const { serveScriptCommand } = await import('../local-provider/serve.js');
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

/** The criterion option seen last while parsing `goal start` (a `--check` belongs to it); reset per subcommand. */
let lastCriterion: GoalCheckFlag['of'] = null;

/** The parser of `--criterion` / `--evidence-criterion`: collects the texts and remembers which one came last. */
function criterionFlag(kind: 'criterion' | 'evidenceCriterion') {
  return (value: string, previous: string[] | undefined): string[] => {
    lastCriterion = { kind, index: previous?.length ?? 0 };
    return collect(value, previous);
  };
}

/** The parser of `--check`: the command and the criterion option right before it (null: none came before). */
function checkFlag(value: string, previous: GoalCheckFlag[] | undefined): GoalCheckFlag[] {
  return [...(previous ?? []), { command: value, of: lastCriterion }];
}

/** Collects a repeatable option's values in order. */
function collect(value: string, previous: string[] | undefined): string[] {
  return [...(previous ?? []), value];
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
  let done = false;
  // A promise nobody awaited that rejects (a Temporal call cut by an outage) is printed like any failure, never
  // as Node's stack; once the command has ended, a late Temporal one is only the closed connection talking.
  process.on('unhandledRejection', (err) => {
    void failureLine(err).then(async ({ known, line }) => {
      if (done && known?.code === 'temporal_unreachable') return;
      const { processSink } = await import('./render.js');
      processSink.err(line);
      process.exit(done ? 1 : exitCodeOf(known));
    });
  });
  // The Temporal client retries a failed call from a timer; when the command closed its connection on the way out
  // (Ctrl-C while a call was in flight), that retry throws `Channel has been shut down` outside any promise. The
  // call belonged to work this command already gave up; anything else thrown that way is printed as a failure.
  process.on('uncaughtException', (err) => {
    if (err instanceof Error && err.message === 'Channel has been shut down') return;
    void failureLine(err).then(async ({ known, line }) => {
      const { processSink } = await import('./render.js');
      processSink.err(line);
      process.exit(done ? 1 : exitCodeOf(known));
    });
  });
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
    const { known, line } = await failureLine(err);
    processSink.err(line);
    return exitCodeOf(known);
  } finally {
    done = true;
  }
}

/**
 * The line `zuno` prints for a failure: `zuno: <code>: <message>` for a
 * ZunoError or a known Temporal failure (client/known-errors.ts), else
 * `zuno: unexpected error: <first line>` — a bug; `ZUNO_DEBUG=1` adds the
 * stack to either.
 */
async function failureLine(err: unknown): Promise<{ known: ZunoError | null; line: string }> {
  const { debugEnabled, knownFailure } = await import('./known-errors.js');
  const { temporalAddressInUse } = await import('./temporal-outage.js');
  const known = knownFailure(err, temporalAddressInUse());
  const stack = debugEnabled() ? `${String((err as Error)?.stack ?? err)}\n` : '';
  if (known) return { known, line: `zuno: ${known.code}: ${messageWithoutCode(known.message, known.code)}\n${stack}` };
  const first = String((err as Error)?.message ?? err).split('\n')[0];
  const hint = stack === '' ? ' (a bug in zuno: ZUNO_DEBUG=1 shows where it happened)' : '';
  return { known: null, line: `zuno: unexpected error: ${(err as Error)?.name ?? 'Error'}: ${first}${hint}\n${stack}` };
}

/** The exit code of a failed command: 130 for `interrupted`, else 1. */
function exitCodeOf(known: ZunoError | null): number {
  return known?.code === 'interrupted' ? 130 : 1;
}

/** The primary agent roles, one `  name  description` line each, for `zuno run --help`. */
function agentHelpLines(): string {
  const names = primaryAgents();
  const width = Math.max(...names.map((n) => n.length));
  return names.map((n) => `  ${n.padEnd(width)}  ${AGENT_ROLES[n]!.description}`).join('\n');
}
