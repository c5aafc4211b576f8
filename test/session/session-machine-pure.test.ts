import { ActivityFailure, ApplicationFailure, RetryState, TimeoutFailure, TimeoutType } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { utf8ByteLength } from '../../core/utf8.js';
import { decideAdmission, MAX_INPUT_BYTES, MAX_QUEUED_BYTES } from '../../workflows/admission.js';
import { ClientIdTable, clientIdKey, MAX_CLIENT_IDS } from '../../workflows/client-ids.js';
import { classifyModelFailure } from '../../workflows/model-failure.js';
import { describeOutcome, statusLine } from '../../workflows/status-line.js';

/** The pure parts of the session state machine (workflows/): admission, client ids, failure classification, status lines. */
const view = (over: Partial<Parameters<typeof decideAdmission>[1]> = {}) => ({
  phase: 'idle' as const,
  turnTakesSteering: false,
  queued: 0,
  queuedBytes: 0,
  clientIds: new ClientIdTable('ses_x'),
  ...over,
});

describe('decideAdmission (SE1, SE2)', () => {
  it('rejects malformed payloads with input_invalid', () => {
    for (const bad of [
      null,
      'text',
      42,
      [],
      {},
      { text: '' },
      { text: '   ' },
      { text: 5 },
      { text: 'a', clientMessageId: '' },
      { text: 'a', clientMessageId: 7 },
    ]) {
      expect(decideAdmission(bad, view())).toMatchObject({ kind: 'reject', code: 'input_invalid' });
    }
    // Size is counted in UTF-8 bytes: 200 000 three-byte characters are over the limit.
    expect(decideAdmission({ text: '界'.repeat(200_000) }, view())).toMatchObject({ code: 'input_invalid' });
    expect(decideAdmission({ text: 'x'.repeat(MAX_INPUT_BYTES) }, view())).toMatchObject({ kind: 'admit' });
    expect(decideAdmission({ text: 'x', extra: 1 }, view())).toMatchObject({
      code: 'input_invalid',
      message: expect.stringContaining('input.extra'),
    });
    expect(decideAdmission({ text: 'x'.repeat(1000) }, view({ queuedBytes: MAX_QUEUED_BYTES - 10 }))).toMatchObject({
      code: 'inbox_full',
    });
    expect([utf8ByteLength('aé界😀'), Buffer.byteLength('aé界😀')]).toEqual([10, 10]);
  });

  it('admits as driven, pending or steered by what the session is doing', () => {
    expect(decideAdmission({ text: 'a' }, view())).toEqual({ kind: 'admit', status: 'driven' });
    expect(decideAdmission({ text: 'a' }, view({ queued: 2 }))).toEqual({ kind: 'admit', status: 'pending' });
    expect(decideAdmission({ text: 'a' }, view({ phase: 'running_turn', turnTakesSteering: true }))).toEqual({
      kind: 'admit',
      status: 'steered',
    });
    // A turn that is finishing takes nothing more: the input drives the next turn.
    expect(decideAdmission({ text: 'a' }, view({ phase: 'running_turn', turnTakesSteering: false }))).toEqual({
      kind: 'admit',
      status: 'driven',
    });
  });

  it('an ending or paused session rejects new input but still answers a resend with its original receipt', () => {
    const clientIds = new ClientIdTable('ses_x');
    clientIds.remember('c1', { inputId: 'in_3', sessionId: 'ses_x', status: 'pending', duplicate: false });
    for (const phase of ['closed', 'paused', 'blocked'] as const) {
      expect(decideAdmission({ text: 'a' }, view({ phase, clientIds }))).toMatchObject({
        code: phase === 'paused' ? 'session_paused' : 'session_closed',
      });
      expect(decideAdmission({ text: 'a', clientMessageId: 'c1' }, view({ phase, clientIds }))).toEqual({
        kind: 'duplicate',
        receipt: { inputId: 'in_3', sessionId: 'ses_x', status: 'pending', duplicate: true },
      });
    }
  });

  it('an Update redelivered across continue-as-new gets the receipt its first delivery got', () => {
    const redelivered = { inputId: 'in_9', sessionId: 'ses_x', status: 'driven' as const, duplicate: false };
    expect(decideAdmission({ text: 'a' }, view({ redelivered }))).toEqual({ kind: 'duplicate', receipt: redelivered });
  });
});

describe('ClientIdTable (SE2: idempotent for the session life)', () => {
  it('remembers every id, survives carrying, and reads runs recorded with the old 256-entry list', () => {
    const t = new ClientIdTable(
      'ses_x',
      [],
      [['old', { inputId: 'in_0', sessionId: 'ses_x', status: 'driven', duplicate: false }]],
    );
    for (let i = 1; i <= 1000; i++)
      t.remember(`c${i}`, { inputId: `in_${i}`, sessionId: 'ses_x', status: 'pending', duplicate: false });
    const next = new ClientIdTable('ses_x', t.toCarried());
    expect(next.lookup('old')).toEqual({ inputId: 'in_0', sessionId: 'ses_x', status: 'driven', duplicate: true });
    expect(next.lookup('c1')).toMatchObject({ inputId: 'in_1', status: 'pending' });
    expect(next.lookup('c1000')).toMatchObject({ inputId: 'in_1000' });
    expect(next.lookup('c1001')).toBeUndefined();
    expect(next.full()).toBe(false);
  });

  it('keys are 16 hex characters and differ for near-identical ids; the table knows when it is full', () => {
    expect(clientIdKey('abc')).toMatch(/^[0-9a-f]{16}$/);
    const keys = new Set(Array.from({ length: 50_000 }, (_, i) => clientIdKey(`cmi_${i}`)));
    expect(keys.size).toBe(50_000);
    const t = new ClientIdTable(
      's',
      Array.from({ length: MAX_CLIENT_IDS }, (_, i) => `${clientIdKey(`k${i}`)}:${i}:d`),
    );
    expect(t.full()).toBe(true);
    expect(decideAdmission({ text: 'a', clientMessageId: 'new' }, view({ clientIds: t }))).toMatchObject({
      code: 'client_ids_exhausted',
    });
    expect(decideAdmission({ text: 'a', clientMessageId: 'k7' }, view({ clientIds: t }))).toMatchObject({
      kind: 'duplicate',
    });
    expect(decideAdmission({ text: 'a' }, view({ clientIds: t }))).toMatchObject({ kind: 'admit' });
  });
});

describe('classifyModelFailure (PR3)', () => {
  const activityFailure = (cause: Error) =>
    new ActivityFailure('failed', 'modelStep', '1', RetryState.NON_RETRYABLE_FAILURE, undefined, cause);
  it('auth pauses, protocol/config block, the rest fail with their code', () => {
    expect(
      classifyModelFailure(activityFailure(ApplicationFailure.nonRetryable('bad key', 'provider_auth')), 1),
    ).toEqual({
      kind: 'paused',
      reason: 'provider_auth',
      message: 'bad key',
    });
    expect(
      classifyModelFailure(activityFailure(ApplicationFailure.nonRetryable('junk', 'provider_protocol')), 1),
    ).toEqual({
      kind: 'blocked',
      code: 'provider_protocol',
      message: 'junk',
    });
    expect(
      classifyModelFailure(activityFailure(ApplicationFailure.nonRetryable('400', 'provider_bad_request')), 1),
    ).toMatchObject({
      kind: 'failed',
      code: 'provider_bad_request',
    });
    expect(
      classifyModelFailure(activityFailure(new TimeoutFailure('t', undefined, TimeoutType.HEARTBEAT)), 6000),
    ).toMatchObject({
      kind: 'failed',
      code: 'model_step_timeout',
      message: expect.stringContaining('6000 ms'),
    });
    expect(classifyModelFailure(activityFailure(new Error('boom')), 1)).toMatchObject({
      kind: 'failed',
      code: 'model_step_failed',
    });
  });
});

describe('status lines (Temporal current details)', () => {
  it('read as plain 1-based lines with UTC times', () => {
    const at = Date.UTC(2026, 11, 1, 6, 41, 5);
    expect(statusLine.tools(2, [{ name: 'shell', summary: 'shell: npm test' }], at)).toBe(
      'turn 3 · shell: npm test · since 06:41:05 UTC',
    );
    expect(statusLine.tools(0, [{ name: 'read', summary: 'read: a' }, { name: 'grep' }], at)).toBe(
      'turn 1 · read: a (+1 more) · since 06:41:05 UTC',
    );
    expect(statusLine.model(0, 1, 'openai/gpt-4.1', at)).toBe(
      'turn 1 · step 2 · asking openai/gpt-4.1 · since 06:41:05 UTC',
    );
    expect(statusLine.idle(2, null, ['bg_0_0_0'], at)).toBe(
      'waiting for 1 background task (bg_0_0_0) · since 06:41:05 UTC',
    );
    // What an operator needs to know of a remote observer: that it is one, and what it runs.
    expect(statusLine.idle(2, null, ['bg_0_0_0'], at, { bg_0_0_0: 'remote observer · sh ci/run' })).toBe(
      'waiting for 1 background task (bg_0_0_0: remote observer · sh ci/run) · since 06:41:05 UTC',
    );
    expect(
      describeOutcome({
        kind: 'failed',
        code: 'provider_bad_request',
        message: 'bad\nrequest',
        turn: 0,
        steps: 1,
        inputIds: [],
      }),
    ).toBe('failed (provider_bad_request): bad request');
    // A provider message that starts with its own code says it once.
    expect(
      describeOutcome({
        kind: 'blocked',
        code: 'provider_protocol',
        message: 'provider_protocol [local]: stream event 2 is not valid JSON',
        turn: 0,
        steps: 1,
        inputIds: [],
      }),
    ).toBe('blocked (provider_protocol): [local]: stream event 2 is not valid JSON');
  });
});
