import type { ProjectionStore } from '../../activities/projection/types.js';

/**
 * The Plan and Todo of a Goal's session, as `zuno goal show` prints them
 * (issue 10 deliverable 4, GP15–GP32: the work state belongs to the session
 * and is read from the projection). The projection does not hold Plan/Todo
 * rows in this build, so this returns null and `goal show` prints no work
 * state — nothing is made up. This is the one place to fill in once the
 * rows exist: return the rendered section (and `goal show --json` carries
 * it as `workState`).
 */
export async function goalWorkState(store: ProjectionStore, sessionId: string): Promise<string | null> {
  void store;
  void sessionId;
  return null;
}
