/**
 * Checker of picomatch-posix-plan: a plan-role session that looked at
 * lib/constants.js (a read of it, or a grep whose output names it), answered
 * with a lib/constants.js:line holding `alpha:`, and changed nothing.
 */
import { type Checker, citesLine, unchanged, verdict } from '../../checks.js';
import { showSession } from '../../receipts.js';

export const check: Checker = async ({ ws, attempt, z }) => {
  if (!attempt.sessionId) return verdict(['the attempt printed no session id']);
  const s = await showSession(z, attempt.sessionId);
  const looked = s.toolCalls.some(
    (c) =>
      c.outcome === 'ok' &&
      ((c.tool === 'read' && c.argsJson.includes('constants.js')) ||
        (c.tool === 'grep' && (c.output ?? '').includes('constants.js'))),
  );
  return verdict([
    s.session.status === 'completed' ? null : `the session ended ${s.session.status}`,
    s.session.agent === 'plan' ? null : `the session's role is ${s.session.agent}, not plan`,
    looked ? null : 'no read or grep of lib/constants.js in the session',
    citesLine(ws, s.session.finalText ?? '', /\balpha:/, /(^|\/)lib\/constants\.js$/),
    unchanged(ws),
  ]);
};
