/**
 * Issue 26 items 1 and 3, Must show: in strict mode `echo hello > note.txt &&
 * ls` is shown in full on every surface that asks a person — the terminal
 * prompt, `zuno approvals list` and its `--json`, the Temporal current
 * details and the approvals query, the `approval.requested` event — with its
 * parsed parts; a decision carrying another text's digest is refused
 * `approval_subject_mismatch` and nothing runs; approving `echo hello >
 * note.txt` for the session does not admit `echo hello > index.js`; a typed
 * pattern is shown back and stored only once confirmed; approving `echo x > k`
 * in `pub` for the session does not run it in `secrets`. Real dev server,
 * real worker (the harness's, on the CLI's home), real shell, real SQLite.
 */
import { existsSync, mkdirSync, mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import { promptApproval } from '../../client/approval-prompt.js';
import { decideApproval, subjectDigestOf } from '../../client/approvals.js';
import type { ApprovalRow } from '../../activities/projection/types.js';
import {
  APPROVALS_QUERY,
  DECIDE_APPROVAL_UPDATE,
  type ApprovalDecisionRequest,
  type ApprovalsView,
} from '../../core/approval-contract.js';
import { EV } from '../../core/events.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import { type Harness, type StartedRun } from '../helpers/harness.js';
import { homeHarness } from './home-harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';
import { runZuno } from './helpers.js';

const cleanups = useCleanups();
let h: Harness;
let home: string;
beforeAll(async () => {
  ({ h, home } = await homeHarness(cleanups));
});

const STRICT: PermissionPolicy = { mode: 'strict', rules: [] };
const FULL = 'echo hello > note.txt && ls';

const shell = (id: string, command: string, workdir?: string) => ({
  id,
  name: 'shell',
  arguments: workdir === undefined ? { command } : { command, workdir },
});

/** A strict session running `calls` one per step, then answering `Done.`. */
async function strictRun(
  calls: ReturnType<typeof shell>[],
  dirs: string[] = [],
): Promise<{ run: StartedRun; ws: string }> {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-approval-subject-'));
  for (const d of dirs) mkdirSync(join(ws, d));
  const run = await h.startScripted({
    workspace: ws,
    prompt: 'write a note',
    permission: STRICT,
    script: { replies: [...calls.map((c) => ({ toolCalls: [c] })), { text: 'Done.' }] },
  });
  cleanups.push(() => run.closeProvider());
  return { run, ws };
}

/** The pending approval of `callId`, once it is recorded. */
function pendingFor(run: StartedRun, callId: string): Promise<ApprovalRow> {
  return waitFor(
    async () =>
      (await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' })).find((a) => a.callId === callId),
    30_000,
    `the approval of ${callId}`,
  );
}

const handleOf = (run: StartedRun) => h.client.workflow.getHandle(`session/${run.sessionId}`);

describe('the subject shown is the command that runs (issue 26 item 1)', () => {
  it('shown in full on every surface; another text’s digest is refused and nothing runs; the prompt decides', async () => {
    const { run, ws } = await strictRun([shell('call_1', FULL)]);
    const row = await pendingFor(run, 'call_1');
    expect(row).toMatchObject({
      subjectText: FULL,
      subjectKind: 'command',
      subjectParts: ['echo hello', 'ls', 'writes note.txt'],
      subjectDigest: subjectDigestOf(FULL),
      grantScope: 'call',
    });

    // The approval event.
    const requested = (await h.store.listEvents(run.sessionId, 0, 1000)).find((e) => e.type === EV.approvalRequested)!;
    expect(requested.data).toMatchObject({
      subjectText: FULL,
      subjectParts: ['echo hello', 'ls', 'writes note.txt'],
      subjectDigest: subjectDigestOf(FULL),
    });

    // Temporal: the approvals query and the current details (Markdown-literal, one line).
    const view = await handleOf(run).query<ApprovalsView>(APPROVALS_QUERY);
    expect(view.pending[0]).toMatchObject({ subjectText: FULL, subjectDigest: subjectDigestOf(FULL) });
    const details = await waitFor(
      async () => {
        const meta = await handleOf(run).query<{ currentDetails?: string }>('__temporal_workflow_metadata');
        return meta.currentDetails?.includes('waiting for approval') ? meta.currentDetails : null;
      },
      10_000,
      'the approval in the current details',
    );
    expect(details).toContain(
      `waiting for approval ${row.id}: shell: echo hello &gt; note.txt &amp;&amp; ls · parts: echo hello; ls; writes note.txt`,
    );

    // zuno approvals list and --json.
    const list = await runZuno(['approvals', 'list', '--session', run.sessionId], { home });
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout).toMatch(
      new RegExp(`${row.id} +${run.sessionId} +shell +echo hello > note\\.txt && ls +strict`),
    );
    expect(list.stdout).toContain('\n    ↳ parts: echo hello; ls; writes note.txt\n');
    const json = JSON.parse((await runZuno(['approvals', 'list', '--json'], { home })).stdout) as ApprovalRow[];
    expect(json.find((r) => r.id === row.id && r.sessionId === run.sessionId)).toMatchObject({
      subjectText: FULL,
      subjectParts: ['echo hello', 'ls', 'writes note.txt'],
      subjectDigest: subjectDigestOf(FULL),
    });

    // A decision made on another text — the parts as shown before issue 26, another command, none — is refused.
    await expect(
      decideApproval(h.client, { ...row, subjectText: 'echo hello; ls' }, { decision: 'approve_once' }),
    ).rejects.toMatchObject({ code: 'approval_subject_mismatch' });
    const raw = (over: Partial<ApprovalDecisionRequest>) =>
      handleOf(run).executeUpdate(DECIDE_APPROVAL_UPDATE, {
        args: [
          {
            approvalId: row.id,
            commandId: `raw-${over.subjectDigest ?? 'none'}`,
            expectedRevision: row.revision,
            decision: 'approve_once',
            ...over,
          },
        ],
      });
    await expect(raw({ subjectDigest: subjectDigestOf('echo hello > index.js && ls') })).rejects.toMatchObject({
      cause: { type: 'approval_subject_mismatch' },
    });
    await expect(raw({})).rejects.toMatchObject({ cause: { type: 'approval_subject_mismatch' } });
    expect(existsSync(join(ws, 'note.txt'))).toBe(false);
    expect(await h.store.getApproval(run.sessionId, row.id)).toMatchObject({ status: 'pending' });
    expect((await handleOf(run).query<ApprovalsView>(APPROVALS_QUERY)).pending.map((p) => p.approvalId)).toEqual([
      row.id,
    ]);

    // The terminal prompt shows the full text and its parts, and its decision carries the right digest.
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (d: Buffer) => (screen += d.toString('utf8')));
    const err: string[] = [];
    const asked = promptApproval(requested, {
      client: h.client,
      store: h.store,
      sink: { out: () => undefined, err: (t: string) => void err.push(t) },
      input,
      output,
    });
    await waitFor(async () => screen.includes('Allow?'), 10_000, 'the question');
    expect(err.join('')).toContain(
      `Zuno wants to run shell: ${FULL}\n  parts: echo hello; ls; writes note.txt\n  (strict mode: shell changes things)\n`,
    );
    expect(screen).toContain('[a] yes, and this exact command for the rest of the session');
    input.write('y\n');
    await asked;
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(ws, 'note.txt'), 'utf8')).toBe('hello\n');
  }, 120_000);

  it('a heredoc keeps its lines in the prompt and is one escaped line in the list', async () => {
    const heredoc = "cat <<'EOF' > note.txt\nfirst line\nsecond line\nEOF";
    const { run, ws } = await strictRun([shell('call_1', heredoc)]);
    const row = await pendingFor(run, 'call_1');
    expect(row.subjectText).toBe(heredoc);
    const list = await runZuno(['approvals', 'list', '--session', run.sessionId], { home });
    expect(list.stdout).toContain("shell  cat <<'EOF' > note.txt\\nfirst line\\nsecond line\\nEOF  strict");
    const err: string[] = [];
    const input = new PassThrough();
    const output = new PassThrough();
    let screen = '';
    output.on('data', (d: Buffer) => (screen += d.toString('utf8')));
    const asked = promptApproval(
      (await h.store.listEvents(run.sessionId, 0, 1000)).find((e) => e.type === EV.approvalRequested)!,
      { client: h.client, store: h.store, sink: { out: () => undefined, err: (t) => void err.push(t) }, input, output },
    );
    await waitFor(async () => screen.includes('Allow?'), 10_000, 'the question');
    expect(err.join('')).toContain(
      "Zuno wants to run shell:\n  │ cat <<'EOF' > note.txt\n  │ first line\n  │ second line\n  │ EOF\n",
    );
    input.write('y\n');
    await asked;
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(ws, 'note.txt'), 'utf8')).toBe('first line\nsecond line\n');
  }, 120_000);
});

describe('a command too large for the history (arguments kept in the projection)', () => {
  it('its row and event hold the full text the digest names; it is approved once, never for the session', async () => {
    const big = `printf '%s' '${'x'.repeat(70_000)}' > big.txt && echo done`;
    const { run, ws } = await strictRun([shell('call_1', big)]);
    const row = await pendingFor(run, 'call_1');
    expect(row).toMatchObject({ subjectText: big, subjectDigest: subjectDigestOf(big), grantScope: null });
    const requested = (await h.store.listEvents(run.sessionId, 0, 1000)).find((e) => e.type === EV.approvalRequested)!;
    expect((requested.data as { subjectText: string }).subjectText).toBe(big);
    // The workflow holds a stand-in naming the length, and the digest of the full text.
    const [held] = (await handleOf(run).query<ApprovalsView>(APPROVALS_QUERY)).pending;
    expect(held).toMatchObject({ subjectDigest: subjectDigestOf(big), textInProjection: true });
    expect(held!.subjectText).toContain(`a command of ${big.length} characters`);
    // …without the tool's label: the surfaces name the tool themselves (no `shell: shell: …`)
    expect(held!.subjectText.startsWith("printf '%s'")).toBe(true);
    const wide = await runZuno(['approvals', 'approve', row.id, '--session', run.sessionId, '--session-wide'], {
      home,
    });
    expect(wide.code).not.toBe(0);
    expect(wide.stderr).toContain('approve it once');
    await expect(decideApproval(h.client, row, { decision: 'approve_session' })).rejects.toMatchObject({
      code: 'approval_invalid',
    });
    await decideApproval(h.client, row, { decision: 'approve_once' });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(ws, 'big.txt'), 'utf8')).toBe('x'.repeat(70_000));
  }, 120_000);
});

describe('grants never widen (issue 26 item 3)', () => {
  it('approving `echo hello > note.txt` for the session: the same command runs, `echo hello > index.js` asks again', async () => {
    const { run, ws } = await strictRun([
      shell('call_1', 'echo hello > note.txt'),
      shell('call_2', 'echo hello > note.txt'),
      shell('call_3', 'echo hello > index.js'),
    ]);
    const first = await pendingFor(run, 'call_1');
    const approved = await runZuno(['approvals', 'approve', first.id, '--session', run.sessionId, '--session-wide'], {
      home,
    });
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toBe(
      `approved ${first.id} (shell: echo hello > note.txt); session ${run.sessionId} no longer asks for this exact command: echo hello > note.txt\n`,
    );
    const third = await pendingFor(run, 'call_3');
    expect(third.subjectText).toBe('echo hello > index.js');
    expect(existsSync(join(ws, 'index.js'))).toBe(false);
    expect((await h.store.listApprovals({ sessionId: run.sessionId })).map((a) => a.callId)).toEqual([
      'call_1',
      'call_3',
    ]);
    expect((await handleOf(run).query<ApprovalsView>(APPROVALS_QUERY)).grants).toEqual([
      { tool: 'shell', pattern: 'echo hello > note.txt', scope: 'call' },
    ]);
    await runZuno(['approvals', 'deny', third.id, '--session', run.sessionId], { home });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(join(ws, 'index.js'))).toBe(false);
    expect(readFileSync(join(ws, 'note.txt'), 'utf8')).toBe('hello\n');
    expect(await h.store.getApproval(run.sessionId, first.id)).toMatchObject({
      decision: 'approve_session',
      grantPattern: 'echo hello > note.txt',
      grantScope: 'call',
    });
  }, 120_000);

  it('a session grant of `echo x > k` in pub/ does not run the same text in secrets/: it asks, nothing is written', async () => {
    const { run, ws } = await strictRun([
      shell('call_1', 'echo x > k', 'pub'),
      shell('call_2', 'echo x > k', 'secrets'),
    ]);
    mkdirSync(join(ws, 'pub'));
    mkdirSync(join(ws, 'secrets'));
    const first = await pendingFor(run, 'call_1');
    expect(first).toMatchObject({
      subjectText: '(in "pub") echo x > k',
      subjectDigest: subjectDigestOf('(in "pub") echo x > k'),
    });
    expect(first.subjectParts).toEqual(['echo x', 'writes pub/k']);
    const approved = await runZuno(['approvals', 'approve', first.id, '--session', run.sessionId, '--session-wide'], {
      home,
    });
    expect(approved.code, approved.stderr).toBe(0);
    const second = await pendingFor(run, 'call_2');
    expect(second.subjectText).toBe('(in "secrets") echo x > k');
    expect(existsSync(join(ws, 'secrets', 'k'))).toBe(false);
    await runZuno(['approvals', 'deny', second.id, '--session', run.sessionId], { home });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(readFileSync(join(ws, 'pub', 'k'), 'utf8')).toBe('x\n');
    expect(existsSync(join(ws, 'secrets', 'k'))).toBe(false);
  }, 120_000);

  it('a typed pattern is shown back, stored only once confirmed, and covers what it says', async () => {
    const { run, ws } = await strictRun([
      shell('call_1', 'echo hello > a.txt'),
      shell('call_2', 'echo hello > b.txt'),
      shell('call_3', 'echo hello > c.js'),
    ]);
    const first = await pendingFor(run, 'call_1');
    const args = ['approvals', 'approve', first.id, '--session', run.sessionId, '--session-wide'];
    const wrong = await runZuno([...args, '--pattern', 'rm *', '--yes'], { home });
    expect(wrong.code).not.toBe(0);
    expect(wrong.stderr).toContain('does not cover the command it would approve');
    const unconfirmed = await runZuno([...args, '--pattern', 'echo hello > *.txt'], { home });
    expect(unconfirmed.code).not.toBe(0);
    expect(unconfirmed.stderr).toContain(
      'would stop asking for shell commands matching the pattern: echo hello > *.txt',
    );
    expect(unconfirmed.stderr).toContain('add --yes');
    expect(await h.store.getApproval(run.sessionId, first.id)).toMatchObject({ status: 'pending' });
    const stored = await runZuno([...args, '--pattern', 'echo hello > *.txt', '--yes'], { home });
    expect(stored.code, stored.stderr).toBe(0);
    expect(stored.stdout).toContain('no longer asks for shell commands matching the pattern: echo hello > *.txt');
    const third = await pendingFor(run, 'call_3');
    expect(third.subjectText).toBe('echo hello > c.js');
    expect(readFileSync(join(ws, 'b.txt'), 'utf8')).toBe('hello\n'); // call_2 ran on the grant
    await decideApproval(h.client, third, { decision: 'deny' });
    expect(await run.result()).toMatchObject({ status: 'completed' });
    expect(existsSync(join(ws, 'c.js'))).toBe(false);
  }, 120_000);
});
