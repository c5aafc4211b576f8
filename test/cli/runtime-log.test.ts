import { ApplicationFailure } from '@temporalio/common';
import { DefaultLogger } from '@temporalio/worker';
import { describe, expect, it } from 'vitest';
import { formatLogMeta, logLine } from '../../client/runtime.js';

describe('Temporal runtime log lines (issue 8)', () => {
  it('carry the workflow, activity, attempt and error on one line', () => {
    const line = formatLogMeta({
      workflowId: 'session/ses_1',
      workflowType: 'sessionWorkflow',
      activityType: 'tool_grep',
      activityId: '7',
      attempt: 2,
      taskQueue: 'zuno',
      namespace: 'default',
      error: Object.assign(new Error('rg exited 2\nwith a second line'), { name: 'ApplicationFailure' }),
    });
    expect(line).toBe(
      ' workflowId=session/ses_1 workflowType=sessionWorkflow activityType=tool_grep activityId=7 attempt=2 taskQueue=zuno error="ApplicationFailure: rg exited 2 with a second line"',
    );
    expect(formatLogMeta(undefined)).toBe('');
    expect(formatLogMeta({ sdkComponent: 'worker' })).toBe('');
  });

  it('the logger the CLI installs renders real Temporal log entries that way', () => {
    const lines: string[] = [];
    const logger = new DefaultLogger('WARN', (entry) => {
      const line = logLine(entry);
      if (line !== null) lines.push(line);
    });
    logger.warn('Activity failed', {
      workflowId: 'session/ses_2',
      activityType: 'modelStep',
      attempt: 3,
      error: new Error('HTTP 503'),
    });
    logger.info('below the level');
    logger.warn('Workflow failed', { workflowType: 'sessionWorkflow', error: new Error('session failed (x): y') });
    expect(lines).toEqual([
      '[temporal warn] Activity failed workflowId=session/ses_2 activityType=modelStep attempt=3 error="Error: HTTP 503"',
    ]);
  });
});

describe('zuno run leaves out what it reports itself', () => {
  it("a model step's provider failure: its retry notice and zuno: line say it; other failures are still logged", () => {
    const entry = (activityType: string, error: unknown) => ({
      level: 'WARN' as const,
      message: 'Activity failed',
      timestampNanos: 0n,
      meta: { workflowId: 'session/ses_3', activityType, attempt: 1, error },
    });
    const provider = ApplicationFailure.create({
      type: 'provider_connection',
      message: 'provider down: connection refused',
    });
    const reported = { modelFailuresReported: true };
    expect(logLine(entry('modelStep', provider), reported)).toBeNull();
    // A standalone worker (no option) keeps it; so does zuno run for anything that is not a provider failure.
    expect(logLine(entry('modelStep', provider))).toContain('provider_connection');
    expect(logLine(entry('modelStep', new Error('database is locked')), reported)).toContain('database is locked');
    const tool = ApplicationFailure.create({ type: 'worker_shutdown', message: 'x' });
    expect(logLine(entry('tool_shell', tool), reported)).toContain('worker_shutdown');
  });

  it("the core's retries against an unreachable server: the follower says `Temporal unreachable` once instead", () => {
    const status =
      'Status { code: Unavailable, message: "tcp connect error", source: Some(ConnectError("tcp connect error", 127.0.0.1:7233, Os { code: 111, kind: ConnectionRefused, message: "Connection refused" })) }';
    const core = (message: string) => ({
      level: 'WARN' as const,
      message,
      timestampNanos: 0n,
      meta: { error: status },
    });
    const reported = { modelFailuresReported: true, outagesReported: true };
    expect(logLine(core('gRPC call poll_workflow_task_queue retried 6 times'), reported)).toBeNull();
    expect(logLine(core('gRPC call record_activity_task_heartbeat retried 9 times'), reported)).toBeNull();
    expect(logLine(core(`Error when recording heartbeat: ${status}`), reported)).toBeNull();
    // A standalone worker keeps them; a retry for another reason is still logged.
    expect(logLine(core('gRPC call poll_workflow_task_queue retried 6 times'))).toContain('retried 6 times');
    expect(
      logLine(
        { ...core('gRPC call poll_workflow_task_queue retried 6 times'), meta: { error: 'PermissionDenied' } },
        reported,
      ),
    ).toContain('PermissionDenied');
  });
});
