/**
 * Where people see delegations (issue 12): `zuno session show` names a
 * session's agent, a child's parent and root, and lists the delegations a
 * session made; `zuno session list` puts children under their parent. The
 * real launcher reads a real SQLite projection whose rows this test writes
 * through the projection store, as the session workflow's activities do.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/open.js';
import type { DelegationRow, SessionRow } from '../../activities/projection/types.js';
import { makeHome, runZuno } from './helpers.js';

const P = 'ses_dparent';
const C1 = 'ses_dchild1';
const C2 = 'ses_dchild2';
const G = 'ses_dgrand';
const OTHER = 'ses_dother';
const T0 = Date.now() - 60_000;

function session(id: string, over: Partial<SessionRow>): SessionRow {
  return {
    id,
    workflowId: `session/${id}`,
    workspace: '/ws/project',
    provider: 'local',
    model: 'scripted',
    status: 'completed',
    title: `title of ${id}`,
    agent: 'build',
    parentSessionId: null,
    rootSessionId: null,
    depth: null,
    createdAtMs: T0,
    updatedAtMs: T0,
    ...over,
  };
}

function delegation(parent: string, rowId: string, over: Partial<DelegationRow>): DelegationRow {
  return {
    parentSessionId: parent,
    rowId,
    callId: `call_${rowId}`,
    jobId: null,
    childSessionId: C1,
    rootSessionId: P,
    agent: 'explore',
    depth: 1,
    mode: 'foreground',
    objective: 'Find where the config file is parsed',
    status: 'completed',
    errorCode: null,
    error: null,
    report: null,
    metadata: null,
    startedAtMs: T0,
    settledAtMs: null,
    ...over,
  };
}

let home: string;

beforeAll(async () => {
  ({ home } = makeHome());
  const store = await openProjectionStore({ zunoDir: home });
  try {
    await store.upsertSession(session(P, { createdAtMs: T0, updatedAtMs: T0 + 10 }));
    await store.upsertSession(
      session(C1, { agent: 'explore', parentSessionId: P, rootSessionId: P, depth: 1, createdAtMs: T0 + 1 }),
    );
    await store.upsertSession(
      session(C2, {
        agent: 'deep',
        status: 'running',
        parentSessionId: P,
        rootSessionId: P,
        depth: 1,
        createdAtMs: T0 + 2,
        updatedAtMs: T0 + 30,
      }),
    );
    // The grandchild is the newest activity: a plain newest-first list would put it on top.
    await store.upsertSession(
      session(G, {
        agent: 'explore',
        parentSessionId: C2,
        rootSessionId: P,
        depth: 2,
        createdAtMs: T0 + 3,
        updatedAtMs: T0 + 40,
      }),
    );
    await store.upsertSession(session(OTHER, { createdAtMs: T0 + 4, updatedAtMs: T0 + 20 }));
    await store.upsertDelegation(
      delegation(P, 'tc_0_0_1', {
        report: '<task_result>\nFound it: src/config.ts:12 parses the file.\nMore detail follows.\n</task_result>',
        settledAtMs: T0 + 5,
      }),
    );
    await store.upsertDelegation(
      delegation(P, 'tc_0_1_0', {
        jobId: 'job_0_1_0',
        childSessionId: C2,
        agent: 'deep',
        mode: 'background',
        objective: 'Refactor the loader\nso it reads one file',
        status: 'running',
      }),
    );
    await store.upsertDelegation(
      delegation(P, 'tc_1_0_0', {
        childSessionId: 'ses_dfailed',
        agent: 'plan',
        status: 'failed',
        errorCode: 'provider_bad_request',
        error: 'provider local: HTTP 400 bad request\nsecond line',
        startedAtMs: T0 + 6,
      }),
    );
    await store.upsertDelegation(
      delegation(C2, 'tc_0_0_0', { childSessionId: G, depth: 2, objective: 'List the loader’s callers' }),
    );
  } finally {
    await store.close();
  }
});

describe('zuno session show: agents and delegations', () => {
  it('names the agent and lists each delegation: agent, mode, place, child, status, objective, first report line', async () => {
    const r = await runZuno(['session', 'show', P], { home });
    expect(r.code, r.stderr).toBe(0);
    const lines = r.stdout.split('\n');
    expect(lines).toContain('agent build');
    const at = lines.indexOf('Delegations (3)');
    expect(at, r.stdout).toBeGreaterThan(0);
    expect(lines.slice(at + 1, at + 10)).toEqual([
      `  1. explore, foreground · turn 1, step 1 · ${C1} · completed`,
      '     objective: Find where the config file is parsed',
      '     report: Found it: src/config.ts:12 parses the file.',
      `  2. deep, background job_0_1_0 · turn 1, step 2 · ${C2} · running`,
      '     objective: Refactor the loader so it reads one file',
      '  3. plan, foreground · turn 2, step 1 · ses_dfailed · failed',
      '     objective: Find where the config file is parsed',
      '     error (provider_bad_request): provider local: HTTP 400 bad request',
      '  (each child: zuno session show <child session>)',
    ]);
  });

  it('a child names its parent; a grandchild its parent and root', async () => {
    const child = await runZuno(['session', 'show', C1], { home });
    expect(child.stdout.split('\n')).toContain(`agent explore · delegated by ${P} (depth 1)`);
    expect(child.stdout).not.toContain('Delegations');
    const grand = await runZuno(['session', 'show', G], { home });
    expect(grand.stdout.split('\n')).toContain(`agent explore · delegated by ${C2}, root ${P} (depth 2)`);
    const middle = await runZuno(['session', 'show', C2], { home });
    expect(middle.stdout).toContain(`  1. explore, foreground · turn 1, step 1 · ${G} · completed`);
  });

  it('--json keeps the rows as stored: machine names, 0-based ids', async () => {
    const r = await runZuno(['session', 'show', P, '--json'], { home });
    const j = JSON.parse(r.stdout) as {
      session: SessionRow;
      delegations: DelegationRow[];
      delegatedBy: DelegationRow | null;
    };
    expect(j.session).toMatchObject({ agent: 'build', parentSessionId: null });
    expect(j.delegatedBy).toBeNull();
    expect(j.delegations.map((d) => [d.rowId, d.agent, d.mode, d.jobId, d.status, d.errorCode])).toEqual([
      ['tc_0_0_1', 'explore', 'foreground', null, 'completed', null],
      ['tc_0_1_0', 'deep', 'background', 'job_0_1_0', 'running', null],
      ['tc_1_0_0', 'plan', 'foreground', null, 'failed', 'provider_bad_request'],
    ]);
    const g = JSON.parse((await runZuno(['session', 'show', G, '--json'], { home })).stdout) as typeof j;
    expect(g.session).toMatchObject({ agent: 'explore', parentSessionId: C2, rootSessionId: P, depth: 2 });
    expect(g.delegatedBy).toMatchObject({ parentSessionId: C2, childSessionId: G, depth: 2 });
  });
});

describe('zuno session list: children under their parent', () => {
  it('lists each child right under its parent, indented per level, oldest child first', async () => {
    const r = await runZuno(['session', 'list'], { home });
    expect(r.code, r.stderr).toBe(0);
    const ids = r.stdout
      .split('\n')
      .slice(1)
      .filter((l) => l !== '')
      .map((l) => /^( *(?:↳ )?ses_\w+)/.exec(l)?.[1]);
    expect(ids).toEqual([P, `↳ ${C1}`, `↳ ${C2}`, `  ↳ ${G}`, OTHER]);
  });

  it('a child whose parent is filtered out names its parent; --json has the links', async () => {
    const r = await runZuno(['session', 'list', '--status', 'running'], { home });
    const rows = r.stdout.split('\n').filter((l) => l.startsWith('ses_'));
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatch(new RegExp(`^${C2} .*\\(child of ${P}\\) title of ${C2}$`));
    const json = JSON.parse((await runZuno(['session', 'list', '--json'], { home })).stdout) as Record<
      string,
      unknown
    >[];
    expect(json.find((s) => s.id === G)).toMatchObject({
      agent: 'explore',
      parentSessionId: C2,
      rootSessionId: P,
      depth: 2,
    });
    expect(json.find((s) => s.id === P)).toMatchObject({ agent: 'build', parentSessionId: null });
  });
});
