import { existsSync, mkdirSync, mkdtempSync, readFileSync, realpathSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, inject, it } from 'vitest';
import { decideApproval } from '../../client/approvals.js';
import { PermissionConfigSchema } from '../../client/permission-config.js';
import type { ApprovalRow } from '../../activities/projection/types.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

/**
 * Issue 26 items 2 and 4 through a real session workflow, worker and shell:
 * the subject the modelStep activity computes carries a call's writes and
 * dynamic parts, and the workflow's gate denies or asks on them before
 * anything is scheduled.
 */
const cleanups = useCleanups();
let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
  cleanups.push(() => h.close());
});

const shell = (id: string, command: string) => ({ id, name: 'shell', arguments: { command } });

describe('writes under an edit deny and programs the rules cannot name, in a session', () => {
  it('writes into secrets/ (directly, through .., through a symlink, by cp) are denied and nothing is written; a program chosen at run time asks', async () => {
    const ws = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-writes-gate-')));
    mkdirSync(join(ws, 'secrets'));
    mkdirSync(join(ws, 'a'));
    writeFileSync(join(ws, 'a.txt'), 'data');
    writeFileSync(join(ws, 'victim.txt'), 'keep me');
    symlinkSync('secrets', join(ws, 'link'));
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'write some files',
      permission: PermissionConfigSchema.parse({
        mode: 'standard',
        rules: { shell: { '*': 'allow', 'rm *': 'deny' }, edit: { 'secrets/**': 'deny' } },
      }),
      script: {
        replies: [
          {
            toolCalls: [
              shell('call_redirect', 'echo x > secrets/k'),
              shell('call_dotdot', 'echo x > a/../secrets/k'),
              shell('call_link', 'echo x > link/k'),
              shell('call_cp', 'cp a.txt secrets/k'),
              shell('call_tee', 'echo x | tee secrets/k'),
              shell('call_ok', 'echo ok > out.txt'),
              shell('call_dynamic', '$(echo rm) victim.txt'),
            ],
          },
          { text: 'Done.' },
        ],
      },
    });
    cleanups.push(() => run.closeProvider());

    const [row] = await waitFor<ApprovalRow[]>(
      async () => {
        const rows = await h.store.listApprovals({ sessionId: run.sessionId, status: 'pending' });
        return rows.length > 0 ? rows : null;
      },
      30_000,
      'the pending approval of the dynamic call',
    );
    expect(row).toMatchObject({
      callId: 'call_dynamic',
      reason: 'the program is chosen at run time: $(echo rm) victim.txt',
    });
    await decideApproval(h.client, row!, { decision: 'deny', message: 'no' });
    expect(await run.result()).toMatchObject({ status: 'completed' });

    expect(existsSync(join(ws, 'secrets', 'k'))).toBe(false);
    expect(readFileSync(join(ws, 'victim.txt'), 'utf8')).toBe('keep me');
    expect(readFileSync(join(ws, 'out.txt'), 'utf8')).toBe('ok\n');

    const calls = (await h.store.loadTranscript(run.sessionId))!.toolCalls;
    const byId = new Map(calls.map((c) => [c.callId, c]));
    for (const id of ['call_redirect', 'call_dotdot', 'call_link', 'call_cp', 'call_tee']) {
      expect(byId.get(id), id).toMatchObject({ outcome: 'blocked', blockedCategory: 'denied' });
      expect(byId.get(id)!.output, id).toContain('rule edit "secrets/**" → deny: the command writes secrets/k');
    }
    expect(byId.get('call_dynamic')).toMatchObject({ outcome: 'blocked', blockedCategory: 'denied' });
    expect(byId.get('call_ok')).toMatchObject({ outcome: 'ok' });

    // Only the admitted call reached the shell.
    const history = await h.client.workflow.getHandle(`session/${run.sessionId}`).fetchHistory();
    const scheduled = (history.events ?? []).filter(
      (e) => e.activityTaskScheduledEventAttributes?.activityType?.name === 'tool_shell',
    );
    expect(scheduled).toHaveLength(1);
  }, 90_000);
});
