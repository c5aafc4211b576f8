import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { openProjectionStore } from '../../activities/projection/open.js';
import type { ApprovalRow, ProjectionStore, SessionRow } from '../../activities/projection/types.js';
import { reopenState } from '../../client/session-target.js';

/**
 * A closed session reopened keeps its session-wide grants (issue 11), read
 * back from its `approve_session` rows in their own scope (issue 26 item 3):
 * a row asked before issue 26 gives one per-command grant per line; a `call`
 * row gives one grant of the whole text, line feeds included. Real SQLite.
 */
let store: ProjectionStore;
beforeAll(async () => {
  store = await openProjectionStore({ zunoDir: mkdtempSync(join(tmpdir(), 'zuno-reopen-grants-')) });
});
afterAll(() => store?.close());

const approval = (id: string, over: Partial<ApprovalRow>): ApprovalRow => ({
  sessionId: 'ses_reopen',
  id,
  rowId: `tc_${id.slice(3)}`,
  callId: `call_${id}`,
  tool: 'shell',
  subjectText: 'echo hello',
  subjectKind: null,
  subjectParts: null,
  subjectDigest: null,
  reason: 'strict mode: shell changes things',
  grantPattern: null,
  grantScope: null,
  revision: 1,
  status: 'approved',
  decision: 'approve_session',
  commandId: 'c',
  message: null,
  turn: 0,
  step: 0,
  requestedAtMs: 1,
  decidedAtMs: 2,
  ...over,
});

it('grants come back in the scope they were given', async () => {
  const heredoc = "cat <<'EOF' > note.txt\nhello\nEOF";
  await store.upsertApproval(approval('ap_0_0_0', { grantPattern: 'echo hello\nls' }));
  await store.upsertApproval(
    approval('ap_0_1_0', {
      subjectText: heredoc,
      subjectKind: 'command',
      subjectParts: ['cat'],
      subjectDigest: 'd'.repeat(64),
      grantPattern: heredoc,
      grantScope: 'call',
    }),
  );
  await store.upsertApproval(
    approval('ap_0_2_0', { decision: 'approve_once', grantPattern: 'rm x', grantScope: 'call', subjectText: 'rm x' }),
  );
  const row: SessionRow = {
    id: 'ses_reopen',
    workflowId: 'session/ses_reopen',
    workspace: '/ws',
    provider: 'local',
    model: 'scripted',
    status: 'completed',
    title: 't',
    agent: 'build',
    createdAtMs: 1,
    updatedAtMs: 2,
  };
  const state = await reopenState(store, row);
  expect(state.grants).toEqual([
    { tool: 'shell', pattern: 'echo hello' },
    { tool: 'shell', pattern: 'ls' },
    { tool: 'shell', pattern: heredoc, scope: 'call' },
  ]);
});
