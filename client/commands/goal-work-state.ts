import type { ProjectionStore } from '../../activities/projection/index.js';
import { workStateText } from '../../activities/projection/index.js';

/**
 * The Plan and Todo of a Goal's session, as `zuno goal show` prints them
 * (GP15–GP32: the work state belongs to the session and is read from the
 * projection): the same rendering, with the same caps, the model gets as
 * `runtime.work_state` — so what a person reads is what the model reads.
 * Null when the session has neither; a part the store cannot read is shown
 * as corrupt.
 */
export async function goalWorkState(store: ProjectionStore, sessionId: string): Promise<string | null> {
  return workStateText(store, sessionId);
}
