import { describe, expect, it } from 'vitest';
import type { SessionRow } from '../../activities/projection/index.js';
import { renderSessionList, sessionJson } from '../../client/commands/session-list.js';

/** `zuno session list`'s table and --json (issue 33: the HOST column, a pause's code in STATUS). Pure. */
const NOW = 1_800_000_000_000;

function row(id: string, extra: Partial<SessionRow> = {}): SessionRow {
  return {
    id,
    workflowId: `session/${id}`,
    workspace: `/work/${id}`,
    provider: 'openai',
    model: 'gpt-4.1',
    status: 'completed',
    title: `title of ${id}`,
    createdAtMs: NOW - 60_000,
    updatedAtMs: NOW - 10_000,
    ...extra,
  };
}

describe('zuno session list view', () => {
  it('has a HOST column before WORKSPACE, kept under the child tree; - for a session recorded before routing', () => {
    const rows = [
      row('ses_parent', { host: 'host-a' }),
      row('ses_child', { host: 'host-a', parentSessionId: 'ses_parent', rootSessionId: 'ses_parent', depth: 1 }),
      row('ses_old', { host: null }),
      row('ses_b', { host: 'host-b', status: 'waiting_background' }),
    ];
    const lines = renderSessionList(rows, NOW).trimEnd().split('\n');
    expect(lines[0]).toMatch(/^ID\s+STATUS\s+LAST ACTIVITY\s+MODEL\s+HOST\s+WORKSPACE\s+TITLE$/);
    const hostAt = lines[0]!.indexOf('HOST');
    const cell = (l: string) => l.slice(hostAt).split(/\s+/)[0];
    expect(lines.slice(1).map((l) => [/^ *(?:↳ )?(ses_\w+)/.exec(l)?.[1], cell(l)])).toEqual([
      ['ses_parent', 'host-a'],
      ['ses_child', 'host-a'],
      ['ses_old', '-'],
      ['ses_b', 'host-b'],
    ]);
    expect(lines[4]).toMatch(
      /^ses_b\s+waiting background\s+just now\s+openai\/gpt-4\.1\s+host-b\s+\/work\/ses_b\s+title of ses_b$/,
    );
  });

  it("a paused or blocked session's status names its code", () => {
    const rows = [
      row('ses_p', {
        status: 'paused',
        host: 'h',
        error: 'workspace_unavailable: the workspace /work/ses_p does not exist on host h; restore it and run …',
      }),
      row('ses_x', { status: 'blocked', error: 'provider_protocol: bad stream' }),
      row('ses_q', { status: 'paused', error: null }),
      row('ses_f', { status: 'failed', error: 'provider_bad_request: no' }),
    ];
    const statuses = renderSessionList(rows, NOW)
      .trimEnd()
      .split('\n')
      .slice(1)
      .map((l) => /^ses_\w+\s+(.+?)\s{2,}/.exec(l)?.[1]);
    expect(statuses).toEqual(['paused (workspace_unavailable)', 'blocked (provider_protocol)', 'paused', 'failed']);
  });

  it('--json carries the host (null before routing)', () => {
    expect(sessionJson(row('ses_a', { host: 'host-a' })).host).toBe('host-a');
    expect(sessionJson(row('ses_o')).host).toBeNull();
  });
});
