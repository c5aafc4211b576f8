/**
 * `zuno run --agent <role>` end to end (issue 12): the real launcher, the
 * global setup's Temporal dev server, a scripted model and a real SQLite
 * projection. A primary role is recorded on the session row and in the
 * `ZunoAgent` search attribute, narrows the catalog (a `plan` session cannot
 * run `shell`), and carries over when the session is continued; a bad role
 * is refused offline with the roles listed, and nothing is written.
 */
import { describe, expect, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/open.js';
import { ZunoAgent } from '../../core/search-attributes.js';
import {
  expectNothingWritten,
  expectTypedFailure,
  makeHome,
  makeWorkspace,
  parseNdjson,
  runZuno,
  tempDir,
  useTestTemporal,
  writeJson,
} from './helpers.js';

const temporal = useTestTemporal();

describe('zuno run --agent', () => {
  it('refuses an unknown role and a subagent-only role offline, listing the primary roles', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = makeWorkspace();
    const unknown = await runZuno(['run', 'hi', '--dir', ws, '--agent', 'wizard', '--model', 'openai/gpt-4.1'], {
      home,
    });
    expect(expectTypedFailure(unknown, 'agent_invalid')).toBe(
      '--agent: no agent "wizard"; choose one of build, plan, deep',
    );
    const sub = await runZuno(['run', 'hi', '--dir', ws, '--agent', 'explore', '--model', 'openai/gpt-4.1'], { home });
    expect(expectTypedFailure(sub, 'agent_invalid')).toMatch(/"explore" is a subagent role .*build, plan, deep$/);
    expectNothingWritten(home);
  });

  it('refuses to continue a child session: it reports to its parent', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = makeWorkspace();
    const store = await openProjectionStore({ zunoDir: home });
    try {
      for (const [id, parent] of [
        ['ses_agentparent', null],
        ['ses_agentchild', 'ses_agentparent'],
      ] as const)
        await store.upsertSession({
          id,
          workflowId: `session/${id}`,
          workspace: ws,
          provider: 'openai',
          model: 'gpt-4.1',
          status: 'completed',
          agent: parent ? 'explore' : 'build',
          parentSessionId: parent,
          rootSessionId: parent,
          depth: parent ? 1 : null,
          createdAtMs: 1,
          updatedAtMs: 1,
        });
    } finally {
      await store.close();
    }
    const r = await runZuno(['run', 'go on', '--session', 'ses_agentchild', '--model', 'openai/gpt-4.1'], { home });
    expect(expectTypedFailure(r, 'session_delegated')).toBe(
      'session ses_agentchild is a child session delegated by ses_agentparent: it reports to its parent, ' +
        'continue that one instead (zuno run --session ses_agentparent "…")',
    );
  });

  it('a Council seat is not continued either: the refusal points at the Council', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = makeWorkspace();
    const store = await openProjectionStore({ zunoDir: home });
    try {
      await store.upsertSession({
        id: 'ses_agentseat',
        workflowId: 'session/ses_agentseat',
        workspace: ws,
        provider: 'openai',
        model: 'gpt-4.1',
        status: 'completed',
        agent: 'security-review',
        parentSessionId: 'cr_mx52kwcja0cd5a78',
        rootSessionId: 'cr_mx52kwcja0cd5a78',
        depth: 1,
        createdAtMs: 1,
        updatedAtMs: 1,
      });
    } finally {
      await store.close();
    }
    const r = await runZuno(['run', 'go on', '--session', 'ses_agentseat', '--model', 'openai/gpt-4.1'], { home });
    expect(expectTypedFailure(r, 'session_delegated')).toContain('see zuno council show cr_mx52kwcja0cd5a78');
  });

  it('--help lists the primary roles with their one-line descriptions', async () => {
    const { home } = makeHome();
    const r = await runZuno(['run', '--help'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^ {2}--agent <role>\s/m);
    expect(r.stdout).toMatch(/^Agent roles \(--agent\):$/m);
    expect(r.stdout).toMatch(/^ {2}build {2}end-to-end delivery/m);
    expect(r.stdout).toMatch(/^ {2}plan {3}read-only planning/m);
    expect(r.stdout).toMatch(/^ {2}deep {3}difficult cross-module/m);
    expect(r.stdout).not.toMatch(/^ {2}explore\s/m);
  });

  it('records the role, narrows the catalog and keeps the role when the session is continued', async () => {
    const { home } = makeHome({ address: temporal.address });
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-agent-script-'), 'script.json', {
      replies: [
        { toolCalls: [{ name: 'shell', arguments: { command: 'touch ran.txt' } }] },
        { text: 'A plan: rename a in src/a.ts.' },
        { text: 'Still planning.' },
      ],
    });
    const env = { TEMPORAL_ADDRESS: temporal.address };
    const r = await runZuno(['run', 'plan the rename', '--dir', ws, '--script', script, '--agent', 'plan', '--json'], {
      home,
      env,
    });
    expect(r.code, r.stderr).toBe(0);
    const events = parseNdjson(r.stdout);
    const sessionId = events.at(-1)!.sessionId as string;
    // shell is not in the plan role's catalog: the call is refused, nothing runs.
    expect(events.find((e) => e.type === 'tool.dispatch.blocked')).toMatchObject({
      tool: 'shell',
      category: 'unavailable',
    });

    const store = await openProjectionStore({ zunoDir: home });
    try {
      expect((await store.getSession(sessionId))?.agent).toBe('plan');
    } finally {
      await store.close();
    }
    const described = await temporal.client.workflow.getHandle(`session/${sessionId}`).describe();
    expect(described.typedSearchAttributes.get(ZunoAgent)).toBe('plan');

    // Continuing keeps the role; another role is refused before anything is sent.
    const other = await runZuno(['run', 'go on', '--session', sessionId, '--agent', 'build', '--script', script], {
      home,
      env,
    });
    expect(expectTypedFailure(other, 'options_conflict')).toContain('runs as the plan agent');
    const next = await runZuno(['run', 'go on', '--session', sessionId, '--script', script, '--json'], { home, env });
    expect(next.code, next.stderr).toBe(0);
    const reopened = await temporal.client.workflow.getHandle(`session/${sessionId}`).describe();
    expect(reopened.typedSearchAttributes.get(ZunoAgent)).toBe('plan');
  });
});
