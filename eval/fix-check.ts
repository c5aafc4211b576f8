/**
 * The checker of a "fix the reintroduced bug and prove it" task: the changed
 * files, the bug's text, the task's own test run by the checker in the
 * workspace (restored first, so an edited test does not count), and the
 * session's passing verification receipt of the test after its last edit.
 */
import {
  bugGone,
  type Checker,
  commandPasses,
  onlyChanged,
  provenAfterLastEdit,
  restoreTaskFiles,
  verdict,
} from './checks.js';
import { showSession } from './receipts.js';

/** What a fix task allows and requires. */
export interface FixSpec {
  /** The test the checker runs in the workspace, e.g. `node --test test/`. */
  test: string;
  /** The paths the attempt may change. */
  allowed: (string | RegExp)[];
  /** The command whose passing receipt, after the last edit, proves the fix. */
  proof: RegExp;
}

/** A {@link Checker} for a fix task. */
export function fixChecker(spec: FixSpec): Checker {
  return async ({ task, ws, attempt, z }) => {
    const reasons = [onlyChanged(ws, spec.allowed), bugGone(task, ws)];
    restoreTaskFiles(task, ws);
    reasons.push(commandPasses(ws, spec.test));
    if (!attempt.sessionId) return verdict([...reasons, 'the attempt printed no session id']);
    const s = await showSession(z, attempt.sessionId);
    reasons.push(s.session.status === 'completed' ? null : `the session ended ${s.session.status}`);
    reasons.push(provenAfterLastEdit(s, spec.proof));
    return verdict(reasons);
  };
}
