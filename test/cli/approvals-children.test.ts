/**
 * A child session's approvals reach the same human surfaces as its parent's
 * (issue 12). Real dev server, real worker (the harness's, on the CLI's
 * home), real shell, real SQLite projection. The sessions standing in for
 * children are real session workflows started with a delegation link in
 * their meta (what a parent's `task` gives them); the parent is a session
 * row. Covered: `zuno approvals list` (the child's agent and parent/root,
 * `--session <parent>` reaching it, `--json`), `zuno approvals approve|deny`
 * of a child's approval, and the inline prompt of a follower — the
 * `DescendantApprovals` watch `zuno run` uses — deciding one through
 * `promptApprovalOf` with typed answers.
 */
import { existsSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { promptApprovalOf } from '../../client/approval-prompt.js';
import {
  childSessionWords,
  DescendantApprovals,
  descendantApprovalLine,
  offerDescendantApprovals,
} from '../../client/descendant-approvals.js';
import { newSessionId } from '../../client/session-start.js';
import type { ApprovalRow, SessionRow } from '../../activities/projection/types.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import { type Harness, type StartedRun } from '../helpers/harness.js';
import { homeHarness } from './home-harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';
import { makeWorkspace, runZuno, tempDir, writeJson } from './helpers.js';

const cleanups = useCleanups();
let h: Harness;
let home: string;
beforeAll(async () => {
  ({ h, home } = await homeHarness(cleanups));
});

const ASK_SHELL: PermissionPolicy = { mode: 'standard', rules: [{ tool: 'shell', action: 'ask' }] };

function parentRow(id: string, over: Partial<SessionRow> = {}): SessionRow {
  const now = Date.now();
  return {
    id,
    workflowId: `session/${id}`,
    workspace: '/ws',
    provider: 'local',
    model: 'scripted',
    status: 'running',
    title: 'the parent',
    agent: 'build',
    createdAtMs: now,
    updatedAtMs: now,
    ...over,
  };
}

function runsOf(ws: string): string[] {
  const f = join(ws, 'runs.txt');
  return existsSync(f) ? readFileSync(f, 'utf8').trim().split('\n') : [];
}

/** A child-like session (agent deep, delegated by `parent` under `root`) whose one shell call asks. */
async function askingChild(
  parent: string,
  root: string,
  depth: number,
): Promise<{ run: StartedRun; ws: string; row: ApprovalRow }> {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-child-approvals-'));
  const run = await h.startScripted({
    workspace: ws,
    prompt: 'record a run',
    permission: ASK_SHELL,
    agent: 'deep',
    delegation: { parentSessionId: parent, rootSessionId: root, depth },
    script: {
      replies: [
        { toolCalls: [{ id: 'call_1', name: 'shell', arguments: { command: 'echo ran >> runs.txt' } }] },
        { text: 'Done.' },
      ],
    },
  });
  cleanups.push(() => run.closeProvider());
  const row = await waitFor(
    async () => (await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' }))[0] ?? null,
    30_000,
    'the child’s pending approval',
  );
  return { run, ws, row };
}

describe('zuno approvals and a child session', () => {
  it('list names the child’s agent and parent; --session <parent> reaches it, in list and approve; approve lets it run', async () => {
    const parent = newSessionId();
    await h.store.upsertSession(parentRow(parent));
    const { run, ws, row } = await askingChild(parent, parent, 1);
    expect(await h.store.getSession(run.sessionId)).toMatchObject({
      agent: 'deep',
      parentSessionId: parent,
      rootSessionId: parent,
      depth: 1,
    });

    const list = await runZuno(['approvals', 'list'], { home });
    expect(list.code, list.stderr).toBe(0);
    const [head, ...lines] = list.stdout.trimEnd().split('\n');
    expect(head).toMatch(/^APPROVAL +SESSION +AGENT +CHILD OF +TOOL +WOULD RUN +WHY +WAITING$/);
    const line = lines.find((l) => l.includes(run.sessionId));
    expect(line, list.stdout).toMatch(new RegExp(`^${row.id} +${run.sessionId} +deep +${parent} +shell +echo ran`));

    const json = JSON.parse((await runZuno(['approvals', 'list', '--json'], { home })).stdout) as Record<
      string,
      unknown
    >[];
    expect(json.find((r) => r.sessionId === run.sessionId)).toMatchObject({
      id: row.id,
      agent: 'deep',
      parentSessionId: parent,
      rootSessionId: parent,
    });
    const scoped = await runZuno(['approvals', 'list', '--session', parent, '--json'], { home });
    expect((JSON.parse(scoped.stdout) as ApprovalRow[]).map((r) => [r.sessionId, r.id])).toEqual([
      [run.sessionId, row.id],
    ]);
    const elsewhere = await runZuno(['approvals', 'list', '--session', newSessionId()], { home });
    expect(elsewhere.stdout).toBe('no approvals are waiting\n');

    // --session may name the parent: the one session below it with that approval pending is meant.
    const approve = await runZuno(['approvals', 'approve', row.id, '--session', parent], { home });
    expect(approve.code, approve.stderr).toBe(0);
    expect(approve.stdout).toBe(`approved ${row.id} (shell: echo ran >> runs.txt) once\n`);
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(runsOf(ws)).toEqual(['ran']);
  }, 90_000);

  it('a grandchild’s approval names its parent and root; deny refuses it with the message', async () => {
    const root = newSessionId();
    const middle = newSessionId();
    await h.store.upsertSession(parentRow(root));
    await h.store.upsertSession(
      parentRow(middle, { agent: 'deep', parentSessionId: root, rootSessionId: root, depth: 1 }),
    );
    const { run, ws, row } = await askingChild(middle, root, 2);
    const list = await runZuno(['approvals', 'list', '--session', root], { home });
    const line = list.stdout.split('\n').find((l) => l.includes(run.sessionId));
    expect(line, list.stdout).toMatch(new RegExp(`^${row.id} +${run.sessionId} +deep +${middle}, root ${root} +shell`));

    const deny = await runZuno(
      ['approvals', 'deny', row.id, '--session', run.sessionId, '--message', 'not from a grandchild'],
      { home },
    );
    expect(deny.code, deny.stderr).toBe(0);
    expect(deny.stdout).toBe(`denied ${row.id} (shell: echo ran >> runs.txt); the model is told\n`);
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(runsOf(ws)).toEqual([]);
    expect(await h.store.getApproval(run.sessionId, row.id)).toMatchObject({
      status: 'denied',
      message: 'not from a grandchild',
    });
  }, 90_000);
});

describe('the follower’s prompt for the approvals of the sessions below it', () => {
  it('finds a descendant’s approval once, not another tree’s, and decides it from typed answers', async () => {
    const followed = newSessionId();
    const stranger = newSessionId();
    await h.store.upsertSession(parentRow(followed));
    await h.store.upsertSession(parentRow(stranger));
    const mine = await askingChild(followed, followed, 1);
    const theirs = await askingChild(stranger, stranger, 1);

    const below = new DescendantApprovals(h.store, followed);
    const fresh = await below.fresh();
    expect(fresh.map((a) => a.row.sessionId)).toEqual([mine.run.sessionId]);
    expect(childSessionWords(fresh[0]!)).toBe(`Child session ${mine.run.sessionId} (deep, delegated by ${followed})`);
    expect(descendantApprovalLine(fresh[0]!)).toBe(
      `? Child session ${mine.run.sessionId} (deep, delegated by ${followed}): shell waits for your approval (${mine.row.id}): ` +
        `echo ran >> runs.txt — zuno approvals approve|deny ${mine.row.id} --session ${mine.run.sessionId}`,
    );
    expect(await below.fresh()).toEqual([]); // handed out once

    // With no terminal to ask on, a new follower announces it on stderr.
    const said: string[] = [];
    await offerDescendantApprovals(new DescendantApprovals(h.store, followed), null, (t) => said.push(t));
    expect(said).toEqual([`${descendantApprovalLine(fresh[0]!)}\n`]);

    // At a terminal: an empty line decides nothing, "y" approves once.
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (d: Buffer) => (screen += d.toString('utf8')));
    const prompts = () => screen.split('Allow?').length - 1;
    const err: string[] = [];
    const sink = { out: () => undefined, err: (t: string) => void err.push(t) };
    const asked = promptApprovalOf(fresh[0]!.row, childSessionWords(fresh[0]!), {
      client: h.client,
      store: h.store,
      sink,
      input,
      output,
    });
    // Each answer is typed once its question shows, as a person would.
    await waitFor(async () => prompts() === 1, 10_000, 'the question');
    input.write('\n');
    await waitFor(async () => prompts() === 2, 10_000, 'the question again');
    input.write('y\n');
    await asked;
    expect(err.join('')).toContain(
      `Child session ${mine.run.sessionId} (deep, delegated by ${followed}) wants to run shell`,
    );
    expect(err.at(-1)).toBe(`${mine.row.id} of ${mine.run.sessionId}: approved once\n`);
    expect(await mine.run.result()).toMatchObject({ status: 'completed' });
    expect(runsOf(mine.ws)).toEqual(['ran']);
    // The other tree's approval still waits for its own person.
    expect(await h.store.getApproval(theirs.run.sessionId, theirs.row.id)).toMatchObject({ status: 'pending' });
    await runZuno(['approvals', 'deny', theirs.row.id, '--session', theirs.run.sessionId], { home });
    expect(await theirs.run.result()).toMatchObject({ status: 'completed' });
  }, 120_000);
});

describe('zuno run follows the approvals of the sessions below it', () => {
  it('with no terminal, announces a child’s approval with the command that decides it', async () => {
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-follow-script-'), 'script.json', {
      replies: [{ toolCalls: [{ name: 'shell', arguments: { command: 'sleep 6' } }] }, { text: 'Parent done.' }],
    });
    let child: Awaited<ReturnType<typeof askingChild>> | undefined;
    let started: Promise<void> | undefined;
    const r = await runZuno(['run', 'wait a little', '--dir', ws, '--script', script], {
      home,
      onSpawn: (p) => {
        let err = '';
        p.stderr!.on('data', (d: Buffer | string) => {
          err += d.toString();
          const id = /session (ses_\w+) started/.exec(err)?.[1];
          if (id && !started) started = askingChild(id, id, 1).then((c) => void (child = c));
        });
      },
    });
    expect(r.code, r.stderr).toBe(0);
    await started;
    expect(child).toBeDefined();
    const parent = /session (ses_\w+) started/.exec(r.stderr)![1]!;
    expect(r.stderr.split('\n')).toContain(
      `? Child session ${child!.run.sessionId} (deep, delegated by ${parent}): shell waits for your approval (${child!.row.id}): ` +
        `echo ran >> runs.txt — zuno approvals approve|deny ${child!.row.id} --session ${child!.run.sessionId}`,
    );
    await runZuno(['approvals', 'deny', child!.row.id, '--session', child!.run.sessionId], { home });
    expect(await child!.run.result()).toMatchObject({ status: 'completed' });
  }, 120_000);
});
