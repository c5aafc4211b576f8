/**
 * Checker of is-number-blank: index.js and new test files only; the model's
 * own test fails against the buggy index.js (it proves the bug) and passes
 * against the fix; the eval's hidden test passes; the session ran the tests
 * after its last edit.
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  bugGone,
  type Checker,
  commandPasses,
  onlyChanged,
  provenAfterLastEdit,
  restoreTaskFiles,
  shellIn,
  verdict,
} from '../../checks.js';
import { showSession } from '../../receipts.js';
import { changedFiles, git } from '../../workspace.js';

const TEST = /^test\/.+\.m?js$/;

/** Fails unless the model's tests fail with HEAD's (buggy) index.js in place; the fix is put back after. */
function testsCatchTheBug(ws: string): string | null {
  const fixed = readFileSync(join(ws, 'index.js'), 'utf8');
  writeFileSync(join(ws, 'index.js'), git(ws, 'show', 'HEAD:index.js'));
  try {
    return shellIn(ws, 'node --test test/').code === 0
      ? 'the added tests pass on the buggy code: they prove nothing'
      : null;
  } finally {
    writeFileSync(join(ws, 'index.js'), fixed);
  }
}

export const check: Checker = async ({ task, ws, attempt, z }) => {
  const added = changedFiles(ws).filter((p) => TEST.test(p));
  const reasons = [onlyChanged(ws, ['index.js', TEST]), bugGone(task, ws)];
  reasons.push(added.length > 0 ? testsCatchTheBug(ws) : 'no test file was added under test/');
  reasons.push(added.length > 0 ? commandPasses(ws, 'node --test test/') : null);
  restoreTaskFiles(task, ws, 'hidden');
  reasons.push(commandPasses(ws, 'node --test test/eval-blank.test.mjs'));
  if (!attempt.sessionId) return verdict([...reasons, 'the attempt printed no session id']);
  const s = await showSession(z, attempt.sessionId);
  reasons.push(s.session.status === 'completed' ? null : `the session ended ${s.session.status}`);
  reasons.push(provenAfterLastEdit(s, /node --test/));
  return verdict(reasons);
};
