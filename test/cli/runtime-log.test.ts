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
