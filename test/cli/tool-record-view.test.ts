import { describe, expect, it } from 'vitest';
import { toolRecordFacts } from '../../client/commands/tool-record-view.js';

describe('session show: a shell receipt and its sandbox (SH10)', () => {
  const receipt = { id: 'rcp_0123456789abcdef', verdict: 'failed', exitCode: 1, authority: 'authoritative' };

  it('names how the command was confined, in words, after the receipt', () => {
    expect(
      toolRecordFacts({
        receipt: { ...receipt, sandbox: { backend: 'bubblewrap', mode: 'read-only', network: 'deny' } },
      }),
    ).toEqual(['receipt: failed, exit 1, authority authoritative', 'sandbox: bubblewrap read-only, network denied']);
    expect(
      toolRecordFacts({
        receipt: { ...receipt, sandbox: { backend: 'platform_native', mode: 'workspace-write', network: 'allow' } },
      }),
    ).toEqual(['receipt: failed, exit 1, authority authoritative', 'sandbox: none, ran unconfined (platform_native)']);
  });

  it('a receipt stored before the sandbox existed shows no sandbox line', () => {
    expect(toolRecordFacts({ receipt })).toEqual(['receipt: failed, exit 1, authority authoritative']);
  });
});
