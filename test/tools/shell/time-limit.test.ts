import { describe, expect, it } from 'vitest';
import { toolImplementations } from '../../../activities/tools/index.js';
import { toolRecordFacts } from '../../../client/commands/tool-record-view.js';
import { HumanRenderer } from '../../../client/render.js';
import type { Sink } from '../../../client/sink.js';
import { EV } from '../../../core/events.js';
import { workspace } from './helpers.js';

/**
 * Issue 25 item 7.3: a shell call stopped at its time limit says so — in the
 * result the model reads, in `zuno run`'s progress line and in `zuno session
 * show` — instead of leaving "killed by SIGTERM" to explain itself. The real
 * shell tool runs `sleep 30` under a 1 s limit; its result and activity facts
 * go through the CLI's renderers.
 */
describe('a shell call that hits its time limit', () => {
  it('is reported as timed out, to the model and in the CLI', async () => {
    const shell = toolImplementations.shell!;
    const r = await shell.run(
      { command: 'sleep 30', timeoutMs: 1000 },
      { workspace: workspace(), sessionId: 'ses_test', rowId: 'tc_1_0_0', callId: 'call_limit' },
    );
    const said = "timed out after 1 s (the call's time limit; pass timeoutMs to change it)";
    expect(r.uncertain).toBe(true);
    expect(r.output.split('\n')[0]).toContain(`the command ${said}`);
    const facts = shell.body.activityFacts!(r);
    expect(facts).toMatchObject({ timeLimitMs: 1000, failed: true });

    const err: string[] = [];
    const sink: Sink = { out: () => undefined, err: (t) => void err.push(t) };
    const renderer = new HumanRenderer(sink, false, { manual: true });
    const data = { rowId: 'tc_0_0_0', callId: 'call_limit', tool: 'shell' };
    renderer.render({
      seq: 1,
      id: 'e1',
      sessionId: 'ses_test',
      type: EV.toolCompleted,
      data: { ...data, outcome: 'uncertain', errorCode: null, outputBytes: 0, durationMs: 1200, facts },
      atMs: 2_000,
    });
    expect(err.join('')).toContain(`? shell uncertain, ${said}`);
    expect(err.join('')).not.toContain('killed by');

    expect(toolRecordFacts(r.data)).toContain(`stopped: the command ${said}`);
  });
});
