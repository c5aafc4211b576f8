import type { JobsPort } from '../infra/ports.js';
import type { ProjectionStore } from '../projection/types.js';

/** The jobs port of a session's `job` calls (DC15): its background delegations as the projection records them. */
export function jobsPort(store: ProjectionStore, sessionId: string): JobsPort {
  return {
    list: async () => (await store.listDelegations(sessionId)).filter((d) => d.mode === 'background'),
    get: async (jobId) =>
      (await store.listDelegations(sessionId)).find((d) => d.mode === 'background' && d.jobId === jobId) ?? null,
  };
}
