/**
 * PR8 encrypted reasoning replay on the Responses surface, end to end: real
 * Temporal dev server, real worker and `modelStep`, real projection, the real
 * local provider capturing every request body over HTTP.
 *
 * Zuno has no command to change a running session's model yet, so a model
 * switch is staged the way the workflow itself carries a session onward
 * (continue-as-new): after a run ends, a new run of the same `session/<id>`
 * workflow starts with the carried state (next turn, next input) and a meta
 * whose model (or replay option) differs. Its requests are assembled from the
 * same stored transcript, so the capsule stored under the first model meets a
 * request for another one.
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, inject, it } from 'vitest';
import type { ProviderConfig } from '../../core/provider-config.js';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../../core/activity-defaults.js';
import type { ProviderReasoning } from '../../core/messages.js';
import type { SessionMeta, SessionWorkflowInput } from '../../core/session/meta.js';
import type { SessionResult } from '../../core/session/outcome.js';
import { startLocalProvider, type CapturedRequest } from '../../local-provider/server.js';
import type { Script } from '../../local-provider/script.js';
import { localProvider } from '../../client/zuno-config.js';
import { createHarness, type Harness } from '../helpers/harness.js';

let h: Harness;
beforeAll(async () => {
  h = await createHarness({ address: inject('temporalAddress') });
});
afterAll(async () => h?.close());

/** An opaque capsule with bytes a careless re-encoding would change. */
const CAPSULE = 'gAAAAABp+/Q==\u00e9\u2028"quoted"\\back\\slash';
/** The model's own argument bytes (spacing and key order kept). */
const ARGS = '{ "pattern":  "*" }';

const encrypted = (p: ProviderConfig): ProviderConfig => ({
  ...p,
  transport: 'responses',
  reasoningReplay: 'encrypted',
});

type Item = Record<string, unknown> & { type: string };
const inputOf = (r: unknown): Item[] => (r as CapturedRequest).input as Item[];

/** `session.provider.request` event data of a session, in order. */
async function requestEvents(sessionId: string): Promise<Record<string, unknown>[]> {
  const events = await h.store.listEvents(sessionId, 0, 1000);
  return events.filter((e) => e.type === 'session.provider.request').map((e) => e.data as Record<string, unknown>);
}

/**
 * Start another run of an ended session's workflow with `meta` and one
 * carried, already admitted input (turn `turn`, input `in_<turn>`), served
 * by a fresh local provider running `script`. Returns its result and the
 * request bodies that provider captured.
 */
async function runAgain(
  base: SessionMeta,
  change: { model?: string; provider?: (p: ProviderConfig) => ProviderConfig },
  turn: number,
  script: Script,
): Promise<{ result: SessionResult; requests: CapturedRequest[] }> {
  const server = await startLocalProvider({ script });
  try {
    const provider = (change.provider ?? ((p) => p))({ ...base.provider, baseUrl: server.url });
    const input: SessionWorkflowInput = {
      meta: { ...base, provider, model: change.model ?? base.model },
      exitWhenIdle: true,
      carried: {
        nextTurn: turn,
        nextInputSeq: turn,
        pending: [{ inputId: `in_${turn}`, text: 'Go on.', admission: 'driven', admittedAtMs: Date.now() }],
        seenClientIds: [],
        lastFinalText: null,
      },
    };
    const handle = await h.client.workflow.start('sessionWorkflow', {
      workflowId: `session/${base.sessionId}`,
      taskQueue: h.taskQueue,
      args: [input],
    });
    const result = (await handle.result()) as SessionResult;
    return { result, requests: server.requests };
  } finally {
    await server.close();
  }
}

describe('Responses session with encrypted reasoning replay (PR8)', () => {
  it('the second request carries the capsule byte-for-byte right before its call; another model withholds it; the producing model gets it back; off sends none', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'zuno-responses-replay-'));
    const run = await h.runSession({
      workspace: ws,
      prompt: 'list the files',
      provider: encrypted,
      script: {
        replies: [
          {
            output: [
              { reasoning: 'I should list the workspace.', capsule: CAPSULE },
              { toolCall: { name: 'glob', arguments: ARGS, id: 'call_glob_1' } },
            ],
          },
          { text: 'The workspace is empty.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    expect(run.providerRequests).toHaveLength(2);
    const [first, second] = run.providerRequests.map(inputOf);
    for (const r of run.providerRequests) {
      expect(r).toMatchObject({ include: ['reasoning.encrypted_content'], stream: true, store: false });
    }
    expect(first!.map((i) => i.type)).toEqual(['message']);

    // Second request: the capsule, byte-for-byte, right before the function_call it explains.
    expect(second!.map((i) => i.type)).toEqual(['message', 'reasoning', 'function_call', 'function_call_output']);
    expect(second![1]).toEqual({
      type: 'reasoning',
      id: 'rs_local_1_0',
      encrypted_content: CAPSULE,
      summary: [{ type: 'summary_text', text: 'I should list the workspace.' }],
    });
    expect(second![2]).toEqual({ type: 'function_call', call_id: 'call_glob_1', name: 'glob', arguments: ARGS });
    expect(second![3]).toMatchObject({ type: 'function_call_output', call_id: 'call_glob_1' });

    const events = await requestEvents(run.sessionId);
    expect(events).toHaveLength(2);
    const counts = (e: Record<string, unknown>) => ({
      reasoningReplay: e.reasoningReplay,
      replayedReasoningCapsules: e.replayedReasoningCapsules,
      withheldReasoningCapsules: e.withheldReasoningCapsules,
      restoredReasoningReplayBoundaries: e.restoredReasoningReplayBoundaries,
      withheldAmbiguousReasoningCapsules: e.withheldAmbiguousReasoningCapsules,
    });
    const none = { restoredReasoningReplayBoundaries: 0, withheldAmbiguousReasoningCapsules: 0 };
    expect(events[0]).toMatchObject({ surface: 'responses', model: 'scripted' });
    expect(counts(events[0]!)).toEqual({
      reasoningReplay: 'encrypted',
      replayedReasoningCapsules: 0,
      withheldReasoningCapsules: 0,
      ...none,
    });
    expect(counts(events[1]!)).toEqual({
      reasoningReplay: 'encrypted',
      replayedReasoningCapsules: 1,
      withheldReasoningCapsules: 0,
      ...none,
    });

    // The capsule is stored on its reasoning part with who produced it, and announced with its ciphertext.
    const t = (await h.store.loadTranscript(run.sessionId))!;
    const stored = t.parts.find((p) => p.kind === 'reasoning')!;
    expect(stored.text).toBe('I should list the workspace.');
    const capsule = (stored.metadata as { providerReasoning: ProviderReasoning }).providerReasoning;
    expect(capsule).toMatchObject({
      provider: 'local',
      model: 'scripted',
      surface: 'responses',
      itemId: 'rs_local_1_0',
      encryptedContent: CAPSULE,
    });
    const announced = (await h.store.listEvents(run.sessionId, 0, 1000)).filter(
      (e) => e.type === 'provider.reasoning.item',
    );
    expect(announced.map((e) => (e.data as { encryptedContent: string }).encryptedContent)).toEqual([CAPSULE]);
    expect(t.toolCalls[0]!.argsJson).toBe(ARGS);

    // The same session on another model: the capsule is withheld (in memory only), the call bytes stay.
    const local = localProvider('http://127.0.0.1:9/v1');
    const meta: SessionMeta = {
      sessionId: run.sessionId,
      workspace: ws,
      provider: encrypted({ ...local, retry: { ...local.retry, initialDelayMs: 100 } }),
      model: 'scripted',
      title: 'list the files',
      toolConcurrency: 8,
      activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
    };
    const other = await runAgain(meta, { model: 'scripted-b' }, 1, { replies: [{ text: 'Other model here.' }] });
    expect(other.result.status).toBe('completed');
    const otherInput = inputOf(other.requests[0]);
    expect(other.requests[0]).toMatchObject({ model: 'scripted-b', include: ['reasoning.encrypted_content'] });
    expect(otherInput.filter((i) => i.type === 'reasoning')).toEqual([]);
    expect(otherInput.map((i) => i.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
      'message',
      'message',
    ]);
    expect(otherInput[1]).toEqual({ type: 'function_call', call_id: 'call_glob_1', name: 'glob', arguments: ARGS });
    const afterSwitch = await requestEvents(run.sessionId);
    expect(afterSwitch).toHaveLength(3);
    expect(afterSwitch[2]).toMatchObject({ turn: 1, model: 'scripted-b' });
    expect(counts(afterSwitch[2]!)).toEqual({
      reasoningReplay: 'encrypted',
      replayedReasoningCapsules: 0,
      withheldReasoningCapsules: 1,
      ...none,
    });
    // The stored row keeps its ciphertext.
    const kept = (await h.store.loadTranscript(run.sessionId))!.parts.find((p) => p.kind === 'reasoning')!;
    expect((kept.metadata as { providerReasoning: ProviderReasoning }).providerReasoning.encryptedContent).toBe(
      CAPSULE,
    );

    // Back on the producing model: replay resumes, byte-for-byte and in place.
    const back = await runAgain(meta, {}, 2, { replies: [{ text: 'Back again.' }] });
    expect(back.result.status).toBe('completed');
    const backInput = inputOf(back.requests[0]);
    const at = backInput.findIndex((i) => i.type === 'function_call');
    expect(backInput[at - 1]).toMatchObject({ type: 'reasoning', id: 'rs_local_1_0', encrypted_content: CAPSULE });
    const afterBack = await requestEvents(run.sessionId);
    expect(counts(afterBack[3]!)).toMatchObject({ replayedReasoningCapsules: 1, withheldReasoningCapsules: 0 });

    // Replay off on the producing model: no include and no capsule, even the one stored while encrypted.
    const off = await runAgain(meta, { provider: (p) => ({ ...p, reasoningReplay: 'off' }) }, 3, {
      replies: [{ text: 'Off now.' }],
    });
    expect(off.result.status).toBe('completed');
    expect('include' in off.requests[0]!).toBe(false);
    expect(inputOf(off.requests[0]).filter((i) => i.type === 'reasoning')).toEqual([]);
    const afterOff = await requestEvents(run.sessionId);
    expect(counts(afterOff[4]!)).toEqual({
      reasoningReplay: 'off',
      replayedReasoningCapsules: 0,
      withheldReasoningCapsules: 1,
      ...none,
    });
  }, 120_000);

  it('with replay off from the start, Responses requests carry no include and no capsule is stored', async () => {
    const ws = mkdtempSync(join(tmpdir(), 'zuno-responses-off-'));
    const run = await h.runSession({
      workspace: ws,
      prompt: 'list the files',
      provider: (p) => ({ ...p, transport: 'responses' }),
      script: {
        replies: [
          {
            output: [
              { reasoning: 'Listing.', capsule: CAPSULE },
              { toolCall: { name: 'glob', arguments: ARGS, id: 'call_glob_1' } },
            ],
          },
          { text: 'Done.' },
        ],
      },
    });
    expect(run.result.status).toBe('completed');
    for (const r of run.providerRequests) expect('include' in (r as CapturedRequest)).toBe(false);
    expect(inputOf(run.providerRequests[1]).map((i) => i.type)).toEqual([
      'message',
      'function_call',
      'function_call_output',
    ]);
    const t = (await h.store.loadTranscript(run.sessionId))!;
    expect(t.parts.find((p) => p.kind === 'reasoning')!.metadata ?? null).toBeNull();
    const events = await requestEvents(run.sessionId);
    // the reasoning part has no capsule, so the request drops it: counted as withheld (PR8)
    expect(events[1]).toMatchObject({
      reasoningReplay: 'off',
      replayedReasoningCapsules: 0,
      withheldReasoningCapsules: 1,
    });
  }, 60_000);
});
