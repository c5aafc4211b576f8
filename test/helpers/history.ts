import { defaultPayloadConverter } from '@temporalio/common';
import type { Client } from '@temporalio/client';

/** One activity a workflow ran, as its history records it. */
export interface ActivityRun {
  /** The activity type, e.g. `tool_read`. */
  type: string;
  /** The one-line summary the Temporal UI shows, when set. */
  summary: string | null;
  /** true for a local activity (a `core_local_activity` marker, issue 13); false for an ActivityTaskScheduled. */
  local: boolean;
  /** A local activity's sequence number (its scheduling order); absent for a regular one. */
  seq?: number;
  /** A local activity that failed (the marker carries a failure). */
  failed: boolean;
  /** A local activity's worker: the identity that completed the workflow task recording its marker. */
  ranBy?: string;
}

/** One event of a fetched workflow history. */
export type HistoryEvent = NonNullable<
  Awaited<ReturnType<ReturnType<Client['workflow']['getHandle']>['fetchHistory']>>['events']
>[number];

function summaryOf(e: HistoryEvent): string | null {
  const data = e.userMetadata?.summary?.data;
  return data ? (JSON.parse(Buffer.from(data).toString('utf8')) as string) : null;
}

/**
 * The activities a workflow ran, in history order: each regular activity at
 * its ActivityTaskScheduled, each local activity at its marker (recorded
 * when it finished, so parallel local activities appear in completion order).
 */
export async function activityRuns(client: Client, workflowId: string): Promise<ActivityRun[]> {
  const history = await client.workflow.getHandle(workflowId).fetchHistory();
  let completedBy = '';
  return (history.events ?? []).flatMap((e): ActivityRun[] => {
    if (e.workflowTaskCompletedEventAttributes) completedBy = e.workflowTaskCompletedEventAttributes.identity ?? '';
    const scheduled = e.activityTaskScheduledEventAttributes;
    if (scheduled) return [{ type: scheduled.activityType!.name!, summary: summaryOf(e), local: false, failed: false }];
    const m = e.markerRecordedEventAttributes;
    if (m?.markerName !== 'core_local_activity') return [];
    const data = defaultPayloadConverter.fromPayload(m.details!.data!.payloads![0]!) as {
      seq: number;
      activity_type: string;
    };
    return [
      {
        type: data.activity_type,
        summary: summaryOf(e),
        local: true,
        seq: data.seq,
        failed: !!m.failure,
        ranBy: completedBy,
      },
    ];
  });
}

/** The `patched()` ids a history recorded (its `core_patch` markers), from the CLI's proto3 JSON. */
export function patchIds(history: {
  events: {
    markerRecordedEventAttributes?: { markerName: string; details?: Record<string, { payloads: { data: string }[] }> };
  }[];
}): string[] {
  return history.events.flatMap((e) => {
    const m = e.markerRecordedEventAttributes;
    const data = m?.markerName === 'core_patch' ? m.details?.['patch-data']?.payloads[0]?.data : undefined;
    return data ? [(JSON.parse(Buffer.from(data, 'base64').toString('utf8')) as { id: string }).id] : [];
  });
}

/**
 * Replays a workflow's history as the Temporal CLI exports it (proto3 JSON,
 * DESIGN.md §4) against the current workflow bundle at `codePath`; with
 * ZUNO_RECORD_HISTORY=1 also writes it as fixture `name` under
 * test/fixtures/histories/ (replayed by test/session/replay.test.ts from then on).
 * @returns the exported history.
 */
export async function replayExported(
  address: string,
  workflowId: string,
  codePath: string,
  name: string,
): Promise<{ events: unknown[] }> {
  const { execFileSync } = await import('node:child_process');
  const { writeFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { Worker } = await import('@temporalio/worker');
  const { TEMPORAL_BIN } = await import('./dev-server.js');
  const json = execFileSync(
    TEMPORAL_BIN,
    ['workflow', 'show', '--workflow-id', workflowId, '--address', address, '--output', 'json'],
    { encoding: 'utf8' },
  );
  const history = JSON.parse(json) as { events: unknown[] };
  await Worker.runReplayHistory({ workflowBundle: { codePath } }, history as never, workflowId);
  if (process.env.ZUNO_RECORD_HISTORY === '1')
    writeFileSync(join(import.meta.dirname, '..', 'fixtures', 'histories', name), json);
  return history;
}

/** The workflow's history events, in order. */
export async function historyOf(client: Client, workflowId: string): Promise<HistoryEvent[]> {
  return (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
}

/** The attempt numbers of every start of activity type `name` in `events` (one entry per started attempt). */
export function startedAttempts(events: HistoryEvent[], name: string): number[] {
  const scheduled = new Map(events.map((e) => [Number(e.eventId), e]));
  return events
    .filter(
      (e) =>
        e.activityTaskStartedEventAttributes &&
        scheduled.get(Number(e.activityTaskStartedEventAttributes.scheduledEventId))
          ?.activityTaskScheduledEventAttributes?.activityType?.name === name,
    )
    .map((e) => e.activityTaskStartedEventAttributes!.attempt ?? 0);
}

/**
 * true when the workflow has no workflow task pending and no activity but those named `running` (the
 * long-lived ones that are the point of the test): a kill now lands in the steady state under test, not
 * in a projection write (whose loss only costs its 60 s start-to-close timeout).
 */
export async function quiescent(client: Client, workflowId: string, running: string[] = []): Promise<boolean> {
  const { raw } = await client.workflow.getHandle(workflowId).describe();
  const activities = (raw.pendingActivities ?? []).map((a) => a.activityType?.name ?? '');
  return !raw.pendingWorkflowTask && activities.every((a) => running.includes(a));
}
