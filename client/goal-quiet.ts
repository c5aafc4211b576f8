import type { Client } from '@temporalio/client';

/**
 * Waits (at most `ms`) until the given workflows have no workflow task
 * pending or running and no activity scheduled that has not started — seen
 * twice in a row, a little apart, since a finished task often signals the
 * other workflow. A command whose in-process worker is about to stop calls
 * this first: a workflow task the worker took while stopping would be
 * abandoned and wait out its 10 s timeout, delaying whoever comes next (and
 * a Goal's last record would wait for the next worker). Never throws;
 * returns whether they went quiet.
 */
export async function waitUntilQuiet(client: Client, workflowIds: string[], ms = 5_000): Promise<boolean> {
  const end = Date.now() + ms;
  let quietInARow = 0;
  while (Date.now() < end) {
    const busy = await Promise.all(
      workflowIds.map(async (id) => {
        try {
          const d = await client.workflow.getHandle(id).describe();
          if (d.status.name !== 'RUNNING') return false;
          const raw = d.raw;
          // Scheduled activities count (a record about to run); started ones (a long tool call, a background task) do not.
          const scheduled = (raw.pendingActivities ?? []).some((a) => !a.lastStartedTime);
          return raw.pendingWorkflowTask != null || scheduled;
        } catch {
          return false;
        }
      }),
    );
    quietInARow = busy.some(Boolean) ? 0 : quietInARow + 1;
    if (quietInARow >= 2) return true;
    await new Promise((r) => setTimeout(r, 100));
  }
  return false;
}
