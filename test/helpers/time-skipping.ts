/**
 * Zuno on Temporal's time-skipping test server (the Java one, pinned as
 * `temporal-test-server-bin` 1.40.0), for tests of timer-heavy behaviour
 * (backoffs of minutes, budgets of hours) without real waiting. What that
 * server does with what Zuno uses, each shown by test/goal/time-skipping.test.ts:
 *
 * Works: update-with-start (`startSession`), Updates with validators,
 * queries, continue-as-new (search attributes carried over), `upsertSearchAttributes`
 * of registered attributes, static summary/details and activity summaries
 * (user metadata), current details (the SDK's `__temporal_workflow_metadata`
 * query), `describe`, `fetchHistory`, activity heartbeats and cancellation,
 * a whole Zuno session with tool calls and a background `remoteObserver` report.
 *
 * Does not work: `OperatorService.ListSearchAttributes` (so
 * `ensureSearchAttributes` fails `search_attributes_failed`; this helper adds
 * them blindly — AddSearchAttributes works, a second add is ALREADY_EXISTS);
 * visibility (`workflow.list`, `workflow.count`, hence `temporal workflow
 * list` and anything querying `ZunoKind`/`ZunoStatus`); DescribeTaskQueue
 * (`zuno session show --route`); schedules (ListSchedules). Every worker
 * logs once that the server lacks `activity_failure_include_heartbeat` (harmless).
 *
 * The clock: time skips only while a client of {@link TimeSkippingServer.client}
 * awaits a result (or `env.sleep`), and only while NO activity is scheduled
 * or running — one activity in flight makes every timer (a 1 h wait racing it)
 * run at real speed. A workflow that ends while one of its activities is still
 * scheduled or running leaves the server's clock locked for good: give a test
 * that may do so its own server, and check with {@link TimeSkippingServer.timeSkips}.
 * Workflow time (`Date.now()` in a workflow) runs ahead of wall time after a
 * skip, while activities stamp wall time: compare the two only loosely.
 */
import { join } from 'node:path';
import type { Client, Connection } from '@temporalio/client';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { installRuntime } from '../../client/runtime.js';
import { INDEXED } from '../../worker/connection.js';
import { REQUIRED_SEARCH_ATTRIBUTES } from '../../worker/temporal-config.js';
import { findBinary } from '../../activities/infra/tool-binaries.js';
import { ROOT } from './dev-server.js';
import { createHarness, type Harness } from './harness.js';

/**
 * The pinned Java time-skipping test server (`temporal-test-server-bin`,
 * installed by scripts/setup-tools.mjs into `.tools/bin`), or
 * `ZUNO_TEMPORAL_TEST_SERVER_BIN`; null when neither is there.
 */
export const TEST_SERVER_BIN = findBinary('temporal-test-server', { projectRoot: ROOT });

/** Entry of the test workflow bundle: Zuno's workflows plus the fixtures in `test/helpers/workflows/`. */
export const TEST_WORKFLOWS_PATH = join(import.meta.dirname, 'workflows', 'index.ts');

/** One time-skipping test server owned by a test file, with Zuno's search attributes registered. */
export interface TimeSkippingServer {
  env: TestWorkflowEnvironment;
  /** `127.0.0.1:<port>`: what `createZunoWorker` / the harness connect to. */
  address: string;
  /**
   * The environment's client: its `workflow.result()` (and so `execute()` and
   * the session harness's `result()`) unlocks time skipping while it waits.
   * Any other client sees the server's clock run at real speed.
   */
  client: Client;
  connection: Connection;
  /** Wall time the server took to start and answer, in ms (measured: ~0.25 s). */
  startedInMs: number;
  /**
   * A session harness (test/helpers/harness.ts) on this server: Zuno's real
   * worker (`createZunoWorker`, every activity, a fresh SQLite projection)
   * hosting Zuno's workflows and the fixture workflows, driven through
   * {@link TimeSkippingServer.client}.
   */
  harness(opts?: { taskQueue?: string; stateDir?: string }): Promise<Harness>;
  /**
   * Whether the server still skips time: asks it to skip 1 h (`env.sleep`)
   * and answers false when that has not returned within `withinMs` of wall
   * time. False means some activity holds the server's time-skipping lock —
   * one is scheduled or running, or one was left behind by a workflow that
   * ended before it (a lock that is never released: see
   * test/goal/time-skipping.test.ts); later tests on this server would wait in real time.
   */
  timeSkips(withinMs?: number): Promise<boolean>;
  /** Stops the server and closes the environment's connections. */
  teardown(): Promise<void>;
}

/**
 * Registers custom search attributes on a server that cannot list them. The
 * Java test server implements `OperatorService.AddSearchAttributes` but not
 * `ListSearchAttributes`, so worker/connection.ts `ensureSearchAttributes`
 * (list, then add what is missing) fails there with `search_attributes_failed`;
 * this adds them all blindly. Until they are added, starting a workflow with
 * one fails `INVALID_ARGUMENT: search attribute ZunoKind is not defined`, and
 * upserting one fails every workflow task of the run.
 * @throws whatever the server answers when it refuses.
 */
export async function registerSearchAttributes(
  connection: Connection,
  namespace: string,
  attributes: Record<string, string> = REQUIRED_SEARCH_ATTRIBUTES,
): Promise<void> {
  const searchAttributes: Record<string, (typeof INDEXED)[string]> = {};
  for (const [name, type] of Object.entries(attributes)) {
    const indexed = INDEXED[type];
    if (indexed === undefined) throw new Error(`unknown search attribute type ${type} for ${name}`);
    searchAttributes[name] = indexed;
  }
  await connection.operatorService.addSearchAttributes({ namespace, searchAttributes });
}

/**
 * Starts the pinned time-skipping test server (never downloads one: the SDK's
 * download does not work offline) and registers Zuno's search attributes.
 * Starting costs ~0.25 s, so each test file starts its own (vitest runs files
 * in parallel forks; time skipping is global to a server, so the tests of one
 * file must not run concurrently). `searchAttributes: false` leaves them
 * unregistered (to show what fails without them).
 * @throws Error naming the fix when the binary is missing.
 */
export async function startTimeSkippingServer(opts: { searchAttributes?: boolean } = {}): Promise<TimeSkippingServer> {
  if (!TEST_SERVER_BIN) {
    throw new Error(
      'temporal-test-server not found: run `npm run setup` (scripts/setup-tools.mjs installs it into .tools/bin) ' +
        'or point ZUNO_TEMPORAL_TEST_SERVER_BIN at one',
    );
  }
  // Before the SDK's Runtime.instance() installs a default one (Zuno's logger, no signal handlers).
  installRuntime('WARN');
  const t0 = Date.now();
  const env = await TestWorkflowEnvironment.createTimeSkipping({
    server: { executable: { type: 'existing-path', path: TEST_SERVER_BIN } },
  });
  const startedInMs = Date.now() - t0;
  try {
    if (opts.searchAttributes !== false) await registerSearchAttributes(env.connection, 'default');
  } catch (err) {
    await env.teardown();
    throw err;
  }
  const address = env.address;
  return {
    env,
    address,
    client: env.client,
    connection: env.connection,
    startedInMs,
    harness: (h = {}) =>
      createHarness({
        address,
        connected: { client: env.client, connection: env.connection },
        workflowsPath: TEST_WORKFLOWS_PATH,
        ...h,
      }),
    timeSkips: async (withinMs = 2_000) => {
      let timer: NodeJS.Timeout | undefined;
      const skipped = env.sleep('1 hour').then(() => true);
      const late = new Promise<false>((r) => (timer = setTimeout(() => r(false), withinMs)));
      // A sleep that does not return stays pending on the server until teardown; nothing waits for it.
      skipped.catch(() => undefined);
      try {
        return await Promise.race([skipped, late]);
      } finally {
        clearTimeout(timer);
      }
    },
    teardown: () => env.teardown(),
  };
}
