/**
 * Checker of bytes-goal: the Goal completed; its criterion (owned by
 * `sh slow-check.sh`) is satisfied by a receipt that the Goal's session
 * stored as a passing run of exactly that command after its last edit; only
 * index.js changed, the bug is gone and the test passes when the checker runs it.
 */
import {
  bugGone,
  type Checker,
  commandPasses,
  lastEditEnd,
  onlyChanged,
  restoreTaskFiles,
  verdict,
} from '../../checks.js';
import { showGoal, showSession } from '../../receipts.js';

export const check: Checker = async ({ task, ws, attempt, z }) => {
  const reasons = [onlyChanged(ws, ['index.js']), bugGone(task, ws)];
  restoreTaskFiles(task, ws);
  reasons.push(commandPasses(ws, 'node --test test/'));
  if (!attempt.goalId) return verdict([...reasons, 'the attempt printed no goal id']);
  const { goal } = await showGoal(z, attempt.goalId);
  reasons.push(goal.state.status === 'completed' ? null : `the goal ended ${goal.state.status}`);
  const criterion = goal.criteria.find((c) => c.check === task.goal!.check);
  const receiptId = criterion?.status === 'satisfied' ? criterion.evidence?.receiptId : undefined;
  if (!receiptId)
    return verdict([...reasons, `the criterion owned by \`${task.goal!.check}\` is not satisfied by a receipt`]);
  const s = await showSession(z, goal.sessionId);
  const call = s.toolCalls.find((c) => c.result?.receipt?.id === receiptId);
  const r = call?.result?.receipt;
  reasons.push(
    r && r.verdict === 'passed' && r.command === task.goal!.check && (call!.startedAtMs ?? 0) >= lastEditEnd(s)
      ? null
      : `receipt ${receiptId} is not a passing run of \`${task.goal!.check}\` after the last edit`,
  );
  return verdict(reasons);
};
