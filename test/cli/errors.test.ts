/**
 * `zuno` on bad input: every failure is exit code 1 with one line
 * `zuno: <code>: <message>` on stderr, nothing on stdout, and no session data
 * written for a run that failed before its session started.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import { randomUUID } from 'node:crypto';
import {
  ApplicationFailure,
  CancelledFailure,
  Client,
  Connection,
  WorkflowFailedError,
  WorkflowUpdateFailedError,
} from '@temporalio/client';
import { RetryState } from '@temporalio/common';
import { connectClient } from '../../worker/connection.js';
import { ZunoError } from '../../core/errors.js';
import { knownFailure } from '../../client/known-errors.js';
import { isTemporalUnreachable } from '../../client/temporal-outage.js';
import { freePort } from '../helpers/dev-server.js';
import { openProjectionStore } from '../../activities/projection/open.js';
import {
  expectNothingWritten,
  expectNoStackInAnyRun,
  expectTypedFailure,
  makeHome,
  makeWorkspace,
  parseNdjson,
  projectionCounts,
  runZuno,
  tempDir,
  writeJson,
} from './helpers.js';

let address: string;
let scriptFile: string;
beforeAll(() => {
  address = inject('temporalAddress');
  scriptFile = writeJson(tempDir('zuno-cli-script-'), 'ok.json', { replies: [{ text: 'done' }] });
});

/** `zuno run` with a valid script and workspace, against the test server unless env says otherwise. */
function runScripted(home: string, extraArgs: string[] = [], env: Record<string, string | undefined> = {}) {
  const ws = makeWorkspace();
  return runZuno(['run', 'hello', '--dir', ws, '--script', scriptFile, ...extraArgs], {
    home,
    env: { TEMPORAL_ADDRESS: address, ...env },
  });
}

describe('malformed temporal.yaml → config_invalid', () => {
  const cases = [
    { name: 'an unknown key dev.prot', text: 'dev:\n  prot: 7233\n', expected: 'dev.prot: unknown key' },
    {
      name: 'a bad value server.mode: cloud',
      text: 'server:\n  mode: cloud\n',
      expected: 'server.mode: Invalid option',
    },
    { name: 'invalid YAML syntax', text: 'server:\n  mode: [dev\n', expected: 'not valid YAML at line' },
  ];
  for (const c of cases) {
    it(`via ZUNO_TEMPORAL_CONFIG: ${c.name}`, async () => {
      const { home } = makeHome({ address });
      const file = join(tempDir('zuno-cli-tcfg-'), 'my-temporal.yaml');
      writeFileSync(file, c.text);
      const r = await runScripted(home, [], { ZUNO_TEMPORAL_CONFIG: file });
      const message = expectTypedFailure(r, 'config_invalid');
      expect(message.startsWith(`${file}: `), message).toBe(true);
      expect(message).toContain(c.expected);
      expectNothingWritten(home);
    });
    it(`via <ZUNO_HOME>/temporal.yaml: ${c.name}`, async () => {
      const { home } = makeHome({ temporalYaml: c.text });
      const r = await runScripted(home);
      const message = expectTypedFailure(r, 'config_invalid');
      expect(message.startsWith(`${join(home, 'temporal.yaml')}: `), message).toBe(true);
      expect(message).toContain(c.expected);
      expectNothingWritten(home);
    });
  }

  it('names every bad key at once', async () => {
    const { home } = makeHome({ temporalYaml: 'server:\n  mode: cloud\ndev:\n  prot: 1\n' });
    const message = expectTypedFailure(await runScripted(home), 'config_invalid');
    expect(message).toContain('server.mode: Invalid option');
    expect(message).toContain('dev.prot: unknown key');
  });

  it('ZUNO_TEMPORAL_CONFIG naming a missing file → config_missing', async () => {
    const { home } = makeHome({ address });
    const missing = join(home, 'nope.yaml');
    const message = expectTypedFailure(
      await runScripted(home, [], { ZUNO_TEMPORAL_CONFIG: missing }),
      'config_missing',
    );
    expect(message).toContain(missing);
  });
});

describe('malformed script → script_invalid', () => {
  const cases = [
    {
      name: 'an unknown key',
      text: JSON.stringify({ replies: [{ text: 'x', toolcalls: [] }] }),
      expected: 'schema violation at replies[0].toolcalls: unknown key',
    },
    {
      name: 'a wrong type',
      text: JSON.stringify({ replies: [{ text: 5 }] }),
      expected: 'schema violation at replies[0].text: Invalid input: expected string, received number',
    },
    { name: 'invalid JSON', text: '{"replies": [', expected: 'not valid JSON (' },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { home } = makeHome({ address });
      const file = join(tempDir('zuno-cli-script-'), 'bad.json');
      writeFileSync(file, c.text);
      const ws = makeWorkspace();
      const r = await runZuno(['run', 'hello', '--dir', ws, '--script', file], {
        home,
        env: { TEMPORAL_ADDRESS: address },
      });
      const message = expectTypedFailure(r, 'script_invalid');
      expect(message).toContain(`invalid provider script ${file}: `);
      expect(message).toContain(c.expected);
      expect(r.stderr).not.toContain('hunter2pass');
      expect(r.stderr).not.toContain('sk-secret');
      expect(projectionCounts(home)).toBeNull();
    });
  }
});

describe('Temporal not reachable', () => {
  it('TEMPORAL_ADDRESS=127.0.0.1:1 → temporal_unreachable, promptly (not a hang)', async () => {
    const { home } = makeHome({ address });
    const r = await runScripted(home, [], { TEMPORAL_ADDRESS: '127.0.0.1:1' });
    const message = expectTypedFailure(r, 'temporal_unreachable');
    expect(message).toContain('cannot reach the Temporal server at 127.0.0.1:1');
    expect(r.timedOut).toBe(false); // ended by itself, well before the helper's 60 s kill
    expectNothingWritten(home);
  });
});

describe('workspace', () => {
  it('--dir that does not exist → workspace_invalid', async () => {
    const { home } = makeHome({ address });
    const missing = join(home, 'no-such-dir');
    const r = await runZuno(['run', 'hello', '--dir', missing, '--script', scriptFile], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    const message = expectTypedFailure(r, 'workspace_invalid');
    expect(message).toContain(`--dir ${missing} is not a usable directory`);
    expect(projectionCounts(home)).toBeNull();
  });

  it('--dir naming a file → workspace_invalid', async () => {
    const { home } = makeHome({ address });
    const r = await runZuno(['run', 'hello', '--dir', scriptFile, '--script', scriptFile], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    const message = expectTypedFailure(r, 'workspace_invalid');
    expect(message).toContain('not a directory');
    expect(projectionCounts(home)).toBeNull();
  });

  it('an empty --dir (an unset variable) → workspace_invalid, not the current directory', async () => {
    const { home } = makeHome({ address });
    const r = await runZuno(['run', 'hello', '--dir', '', '--script', scriptFile], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect(expectTypedFailure(r, 'workspace_invalid')).toContain('--dir is empty');
    expect(projectionCounts(home)).toBeNull();
  });
});

describe('model selection', () => {
  it('no model and no script → model_missing', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    const r = await runZuno(['run', 'hello', '--dir', ws], { home, env: { TEMPORAL_ADDRESS: address } });
    const message = expectTypedFailure(r, 'model_missing');
    expect(message).toContain('pass --model provider/model');
    expect(projectionCounts(home)).toBeNull();
  });

  it('--model nonsense → model_invalid', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    const r = await runZuno(['run', 'hello', '--dir', ws, '--model', 'nonsense'], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect(expectTypedFailure(r, 'model_invalid')).toBe('--model must be provider/model (got "nonsense")');
    expectNothingWritten(home);
  });

  it('--model nope/x → provider_unknown naming the known providers', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    const r = await runZuno(['run', 'hello', '--dir', ws, '--model', 'nope/x'], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect(expectTypedFailure(r, 'provider_unknown')).toBe(
      'unknown provider "nope" (configured: openai, openrouter, xai, anthropic); add it to zuno.json providers',
    );
    expectNothingWritten(home);
  });
});

describe('a missing API key is found before any session exists', () => {
  it('--model openai/x without OPENAI_API_KEY → api_key_missing naming the variable', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    const r = await runZuno(['run', 'hello', '--dir', ws, '--model', 'openai/gpt-5'], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect(expectTypedFailure(r, 'api_key_missing')).toContain('OPENAI_API_KEY, which is not set');
    expectNothingWritten(home);
  });
  it('on the embedded default it is refused before the dev server starts', async () => {
    // A dev-mode home on a port nothing listens on: starting a server there would show in its state file and log.
    const { home } = makeHome({ temporalYaml: 'server:\n  mode: dev\ndev:\n  port: 1\n  uiPort: 2\n' });
    const r = await runZuno(['run', 'hello', '--dir', makeWorkspace(), '--model', 'openai/gpt-5'], { home });
    expectTypedFailure(r, 'api_key_missing');
    expect(r.stderr).not.toContain('Temporal dev server');
    expectNothingWritten(home);
  });
});

describe('malformed zuno.json in the workspace → config_invalid', () => {
  const cases = [
    { name: 'an unknown key', value: { modle: 'openai/gpt-4.1' }, expected: 'modle: unknown key' },
    {
      name: 'a bad nested value',
      value: { concurrency: { tool_calls: 0 } },
      expected: 'concurrency.tool_calls: Too small',
    },
    { name: 'a malformed model reference', value: { model: 'gpt-4.1' }, expected: 'model: expected provider/model' },
    {
      // The base URL travels in workflow history: a key or password in it would be visible in the Temporal UI (PR6).
      name: 'credentials in a provider base_url',
      value: { providers: { x: { base_url: 'http://user:hunter2pass@127.0.0.1:9/v1?key=sk-secret' } } },
      expected: 'providers.x.base_url: must not carry credentials or a query string',
    },
  ];
  for (const c of cases) {
    it(c.name, async () => {
      const { home } = makeHome({ address });
      const ws = makeWorkspace();
      const cfg = writeJson(ws, 'zuno.json', c.value);
      const r = await runZuno(['run', 'hello', '--dir', ws, '--script', scriptFile], {
        home,
        env: { TEMPORAL_ADDRESS: address },
      });
      const message = expectTypedFailure(r, 'config_invalid');
      expect(message.startsWith(`${cfg}: `), message).toBe(true);
      expect(message).toContain(c.expected);
      expect(r.stderr).not.toContain('hunter2pass');
      expect(r.stderr).not.toContain('sk-secret');
      expect(projectionCounts(home)).toBeNull();
    });
  }

  it('invalid JSON', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    writeFileSync(join(ws, 'zuno.json'), '{"model": ');
    const r = await runZuno(['run', 'hello', '--dir', ws, '--script', scriptFile], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    const message = expectTypedFailure(r, 'config_invalid');
    expect(message).toContain(`${join(ws, 'zuno.json')}: not valid JSON`);
    expect(projectionCounts(home)).toBeNull();
  });
});

describe('zuno session show', () => {
  it('an unknown id → session_not_found', async () => {
    const { home } = makeHome({ address });
    const r = await runZuno(['session', 'show', 'ses_doesnotexist'], { home });
    expect(expectTypedFailure(r, 'session_not_found')).toBe('no session ses_doesnotexist in the projection');
  });

  it('an empty or malformed session id is refused before anything is contacted', async () => {
    const { home } = makeHome({ address });
    for (const args of [
      ['session', 'show', ''],
      ['session', 'interrupt', ''],
      ['session', 'interrupt', '../x'],
    ]) {
      const r = await runZuno(args, { home, env: { TEMPORAL_ADDRESS: address } });
      expect(expectTypedFailure(r, 'session_id_invalid'), args.join(' ')).toContain('is not a session id');
    }
    expectNothingWritten(home);
  });
});

describe('empty prompt', () => {
  /** What Temporal holds for the rejected run, filled by the first test. */
  let orphans: { workflowId: string; status: string }[] | undefined;

  afterAll(async () => {
    if (!orphans?.length) return;
    const { client, connection } = await connectClient({ address, namespace: 'default', connectTimeoutMs: 5000 });
    try {
      for (const w of orphans) {
        if (w.status === 'RUNNING') {
          await client.workflow
            .getHandle(w.workflowId)
            .terminate('zuno CLI test cleanup')
            .catch(() => undefined);
        }
      }
    } finally {
      await connection.close();
    }
  });

  it('is rejected by the session workflow → input_rejected; the projection gets nothing of it', async () => {
    const { home, taskQueue } = makeHome({ address });
    const ws = makeWorkspace();
    const env = { TEMPORAL_ADDRESS: address };
    // A good session first, so the projection exists and "nothing added" is meaningful.
    const good = await runZuno(['run', 'hello', '--dir', ws, '--script', scriptFile, '--json'], { home, env });
    expect(good.code, good.stderr).toBe(0);
    const goodId = parseNdjson(good.stdout).at(-1)!.sessionId as string;
    const before = projectionCounts(home);
    expect(before?.sessions).toBe(1);

    const empty = await runZuno(['run', '', '--dir', ws, '--script', scriptFile], { home, env });
    expect(expectTypedFailure(empty, 'input_rejected')).toBe('the prompt is empty');
    // Whitespace only is rejected the same way.
    const blank = await runZuno(['run', '  \n ', '--dir', ws, '--script', scriptFile], { home, env });
    expect(expectTypedFailure(blank, 'input_rejected')).toBe('the prompt is empty');
    // The projection holds exactly what it held before: no session, input, event or tool-call row.
    expect(projectionCounts(home)).toEqual(before);

    // Temporal's side: the session workflows started on this file's unique task queue.
    const { client, connection } = await connectClient({ address, namespace: 'default', connectTimeoutMs: 5000 });
    let listed: { workflowId: string; status: string }[] = [];
    try {
      const list = async () => {
        const out: { workflowId: string; status: string }[] = [];
        for await (const w of client.workflow.list({ query: `TaskQueue = '${taskQueue}'` })) {
          out.push({ workflowId: w.workflowId, status: w.status.name });
        }
        return out;
      };
      // Visibility is eventually consistent: wait until the good session shows as completed.
      for (let i = 0; i < 50; i++) {
        listed = await list();
        if (listed.some((w) => w.workflowId === `session/${goodId}` && w.status === 'COMPLETED')) break;
        await new Promise((res) => setTimeout(res, 200));
      }
    } finally {
      await connection.close();
    }
    expect(listed).toContainEqual({ workflowId: `session/${goodId}`, status: 'COMPLETED' });
    // Any other workflow there belongs to a rejected run and has no session in the projection.
    const store = await openProjectionStore({ zunoDir: home });
    try {
      orphans = listed.filter((w) => w.workflowId !== `session/${goodId}`);
      for (const w of orphans) expect(await store.getSession(w.workflowId.replace(/^session\//, ''))).toBeNull();
    } finally {
      await store.close();
    }
  });

  // A rejected prompt is refused before any workflow starts (and a first input the
  // workflow's validator rejects terminates the started workflow: test/session/inbox.test.ts).
  it('a rejected run leaves no RUNNING session workflow behind', () => {
    expect(orphans).toBeDefined();
    expect(orphans!.filter((w) => w.status === 'RUNNING')).toEqual([]);
  });
});

describe('a provider that cannot be reached', () => {
  it('says its retry and reason plainly, and ends with one zuno: line naming provider_connection once', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    writeJson(ws, 'zuno.json', {
      providers: { down: { base_url: 'http://127.0.0.1:1/v1', retry: { max_attempts: 2, initial_delay_ms: 50 } } },
    });
    const r = await runZuno(['run', 'hello', '--dir', ws, '--model', 'down/m'], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect({ code: r.code, timedOut: r.timedOut, stdout: r.stdout }, r.stderr).toEqual({
      code: 1,
      timedOut: false,
      stdout: '',
    });
    const lines = r.stderr.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^session ses_[0-9a-z]+ started$/);
    expect(lines).toContainEqual(
      expect.stringMatching(
        /^\(retrying the model request \(attempt 2 of 2\) in \d\.\d s after: connection refused: 127\.0\.0\.1:1 \(ECONNREFUSED\)\)$/,
      ),
    );
    expect(lines.at(-1)).toMatch(
      /^zuno: provider_connection: session ses_[0-9a-z]+ failed: provider down: connection refused: 127\.0\.0\.1:1 \(ECONNREFUSED\) \(after 2 attempts; last: code ECONNREFUSED\)$/,
    );
    // The code is said once in everything zuno run printed, and no retry claims discarded output.
    expect(r.stderr.match(/provider_connection/g), r.stderr).toHaveLength(1);
    expect(r.stderr).not.toContain('discarded');
  }, 90_000);
});

describe('known Temporal failures → typed one-line errors (client/known-errors.ts)', () => {
  it('a call to a server that is down: ServiceError UNAVAILABLE → temporal_unreachable naming the address', async () => {
    const port = await freePort();
    const connection = await Connection.connect({ address: `127.0.0.1:${port}`, connectTimeout: 1000 }).catch(
      (err: unknown) => err,
    );
    // Connecting itself fails against a closed port; what it throws is recognised too.
    const err =
      connection instanceof Connection
        ? await new Client({ connection }).workflow
            .getHandle('nope')
            .describe()
            .catch((e: unknown) => e)
        : connection;
    expect(isTemporalUnreachable(err)).toBe(true);
    const known = knownFailure(err, `127.0.0.1:${port}`);
    expect(known?.code).toBe('temporal_unreachable');
    expect(known?.message).toContain(`at 127.0.0.1:${port}`);
    expect(known?.message).not.toContain('\n');
  });

  it('a closed connection (Channel has been shut down) → temporal_unreachable', async () => {
    const { client, connection } = await connectClient({ address, namespace: 'default', connectTimeoutMs: 5000 });
    await connection.close();
    const err = await client.workflow
      .getHandle('nope')
      .describe()
      .catch((e: unknown) => e);
    expect(knownFailure(err)?.code).toBe('temporal_unreachable');
  });

  it('a workflow that does not exist → not_found; a terminated one → workflow_terminated', async () => {
    const { client, connection } = await connectClient({ address, namespace: 'default', connectTimeoutMs: 5000 });
    try {
      const missing = await client.workflow
        .getHandle(`no-such-${randomUUID()}`)
        .describe()
        .catch((e: unknown) => e);
      expect((missing as Error).name).toBe('WorkflowNotFoundError');
      const nf = knownFailure(missing);
      expect(nf?.code).toBe('not_found');
      expect(nf?.message).toContain('no-such-');
      // A workflow no worker ever takes, terminated: its result fails with a TerminatedFailure.
      const handle = await client.workflow.start('zunoNeverRuns', {
        taskQueue: `zuno-no-worker-${randomUUID()}`,
        workflowId: `zuno-terminated-${randomUUID()}`,
      });
      await handle.terminate('the test ends it');
      const ended = await handle.result().catch((e: unknown) => e);
      expect(isTemporalUnreachable(ended)).toBe(false);
      const t = knownFailure(ended);
      expect(t?.code).toBe('workflow_terminated');
      expect(t?.message).toContain('the test ends it');
    } finally {
      await connection.close();
    }
  });

  it('cancelled, failed with a code, update refused: their own codes; a provider refusal is not an outage', () => {
    const cancelled = new WorkflowFailedError(
      'Workflow execution cancelled',
      new CancelledFailure('cancelled by you'),
      RetryState.NON_RETRYABLE_FAILURE,
    );
    expect(knownFailure(cancelled)?.code).toBe('workflow_cancelled');
    const refused = new WorkflowUpdateFailedError(
      'Workflow Update failed',
      ApplicationFailure.create({ type: 'session_not_running', message: 'session ses_1 has ended' }),
    );
    expect(knownFailure(refused)).toMatchObject({
      code: 'session_not_running',
      message: 'the workflow refused the request: session ses_1 has ended',
    });
    const provider = new WorkflowFailedError(
      'Workflow execution failed',
      ApplicationFailure.create({
        type: 'provider_connection',
        message: 'connection refused: 127.0.0.1:1 (ECONNREFUSED)',
      }),
      RetryState.NON_RETRYABLE_FAILURE,
    );
    expect(isTemporalUnreachable(provider)).toBe(false);
    expect(knownFailure(provider)?.code).toBe('provider_connection');
    expect(isTemporalUnreachable(new ZunoError('provider_connection', 'ECONNREFUSED'))).toBe(false);
    // A bug stays a bug: not mapped.
    expect(knownFailure(new TypeError('x is undefined'))).toBeNull();
  });
});

describe('no fault test of this file printed `unexpected error` or a stack', () => {
  it('greps every zuno run above', () => {
    expect(expectNoStackInAnyRun()).toBeGreaterThan(10);
  });
});
