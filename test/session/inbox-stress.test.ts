import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { submitInput } from '../../client/session-start.js';
import type { AdmissionReceipt } from '../../core/session/inbox.js';
import type { SessionState } from '../../core/session/state.js';
import { STATE_QUERY, SUBMIT_INPUT_UPDATE, type SubmitInputRequest } from '../../core/session/updates.js';
import { startTestDevServer } from '../helpers/dev-server.js';
import { createHarness } from '../helpers/harness.js';
import { useCleanups } from '../helpers/session.js';
import { waitFor } from '../helpers/worker-process.js';

const cleanups = useCleanups();
const CLIENTS = 20;
const PER_CLIENT = 20;

describe('inbox exactly-once (SE1, SE2, temporalio/temporal#6375)', () => {
  it('concurrent inputs across many continue-as-new runs: each admitted once, none lost, FIFO kept, resends answered with the original receipt', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'zuno-stress-temporal-'));
    const server = await startTestDevServer(join(dir, 'temporal.db'), ['limit.historyCount.suggestContinueAsNew=20']);
    cleanups.push(async () => {
      await server.kill();
      rmSync(dir, { recursive: true, force: true });
    });
    const h = await createHarness({ address: server.address });
    cleanups.push(() => h.close());
    const run = await h.startScripted({
      workspace: mkdtempSync(join(tmpdir(), 'zuno-stress-ws-')),
      prompt: 'start',
      exitWhenIdle: false,
      script: { replies: Array.from({ length: 2000 }, (_, i) => ({ text: `ok ${i}` })) },
    });
    cleanups.push(() => run.closeProvider());
    const handle = h.client.workflow.getHandle(run.workflowId);
    cleanups.push(() => handle.terminate('test over'));
    // A raw Update without a client message id (Zuno's own clients always attach one).
    const rawSubmit = (req: SubmitInputRequest) =>
      handle.executeUpdate<AdmissionReceipt, [SubmitInputRequest]>(SUBMIT_INPUT_UPDATE, { args: [req] });

    const receipts = new Map<string, AdmissionReceipt>();
    const resends: [AdmissionReceipt, AdmissionReceipt][] = [];
    const firstSendDuplicates: string[] = [];
    await Promise.all(
      Array.from({ length: CLIENTS }, async (_, c) => {
        const withIds = c % 2 === 0;
        for (let m = 0; m < PER_CLIENT; m++) {
          const text = `client ${c} message ${m}`;
          const req = withIds ? { text, clientMessageId: `c${c}-m${m}` } : { text };
          const r = withIds ? await submitInput(h.client, run.sessionId, req) : await rawSubmit(req);
          // A Zuno client's own retry of a send (a new Update, the same client message id) is answered with
          // the original receipt, duplicate: true; an Update without one that the server delivers again gets
          // its first receipt unchanged. Either way the input is admitted once (checked below).
          if (r.duplicate) firstSendDuplicates.push(`${withIds ? 'with id' : 'raw'}: ${text} -> ${r.inputId}`);
          if (!withIds) expect(r.duplicate).toBe(false);
          receipts.set(text, r);
        }
        if (withIds) {
          // An old resend (many admissions later) and a recent one.
          for (const m of [0, PER_CLIENT - 1]) {
            const text = `client ${c} message ${m}`;
            resends.push([
              receipts.get(text)!,
              await submitInput(h.client, run.sessionId, { text, clientMessageId: `c${c}-m${m}` }),
            ]);
          }
        }
      }),
    );
    for (const [first, again] of resends) expect(again).toEqual({ ...first, duplicate: true });

    const total = CLIENTS * PER_CLIENT + 1;
    await waitFor(
      async () => {
        const t = await h.store.loadTranscript(run.sessionId);
        const state = await handle.query<SessionState>(STATE_QUERY).catch(() => null);
        return (
          state?.phase === 'idle' &&
          state.pending.length === 0 &&
          t?.inputs.length === total &&
          t.inputs.every((i) => i.state === 'completed')
        );
      },
      240_000,
      'every input to be answered',
    );
    const t = (await h.store.loadTranscript(run.sessionId))!;
    // Each input once in the projection, with the id its receipt named.
    expect(t.inputs).toHaveLength(total);
    for (const [text, r] of receipts) {
      expect(t.inputs.filter((i) => i.text === text).map((i) => i.id)).toEqual([r.inputId]);
    }
    // The model saw each text exactly once: one user part per input.
    const userTexts = t.parts.filter((p) => p.kind === 'text' && p.messageId.startsWith('msg_in_')).map((p) => p.text);
    expect(userTexts).toHaveLength(total);
    expect(new Set(userTexts).size).toBe(total);
    // FIFO: each client's inputs were admitted in send order, and the conversation carries inputs in admission order.
    const seq = (id: string) => Number(id.replace('in_', ''));
    for (let c = 0; c < CLIENTS; c++) {
      const ids = Array.from({ length: PER_CLIENT }, (_, m) => seq(receipts.get(`client ${c} message ${m}`)!.inputId));
      expect(ids).toEqual([...ids].sort((a, b) => a - b));
    }
    const carried = t.parts
      .filter((p) => p.kind === 'text' && p.messageId.startsWith('msg_in_'))
      .sort((a, b) => a.turn - b.turn || a.step - b.step || a.position - b.position)
      .map((p) => seq(p.messageId.replace('msg_in_', '')));
    expect(carried).toEqual([...carried].sort((a, b) => a - b));
    // And it really ran across many runs.
    let runs = 0;
    for await (const _ of h.client.workflow.list({ query: `WorkflowId = '${run.workflowId}'` })) runs += 1;
    console.log(
      `inbox stress: ${total} inputs, ${resends.length} resends, ${runs} workflow runs; first sends answered duplicate: ${JSON.stringify(firstSendDuplicates)}`,
    );
    // At least two continue-as-new boundaries crossed (how many depends on how much input steers into long turns: 3–9 seen).
    expect(runs).toBeGreaterThanOrEqual(3);
  }, 300_000);
});
