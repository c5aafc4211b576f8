/**
 * Checker of kleur-delegate: the session made a `task` call whose explore
 * child completed after searching (a read or grep of its own) and reported a
 * file:line that holds kleur's `enabled:` decision; the parent's answer cites
 * such a line too; nothing changed.
 */
import { type Checker, citesLine, unchanged, verdict } from '../../checks.js';
import { showSession } from '../../receipts.js';

const DECISION = /\benabled:/;

export const check: Checker = async ({ ws, attempt, z }) => {
  if (!attempt.sessionId) return verdict(['the attempt printed no session id']);
  const s = await showSession(z, attempt.sessionId);
  const reasons = [
    s.session.status === 'completed' ? null : `the session ended ${s.session.status}`,
    unchanged(ws),
    citesLine(ws, s.session.finalText ?? '', DECISION),
  ];
  const done = s.delegations.filter((d) => d.status === 'completed' && d.childSessionId);
  if (!s.toolCalls.some((c) => c.tool === 'task' && c.outcome === 'ok') || done.length === 0) {
    return verdict([...reasons, 'no task call with a completed child session: the search was not delegated']);
  }
  const findings: (string | null)[] = [];
  for (const d of done) {
    const child = await showSession(z, d.childSessionId!);
    const searched = child.toolCalls.some((c) => (c.tool === 'grep' || c.tool === 'read') && c.outcome === 'ok');
    const cited = citesLine(ws, d.report ?? child.session.finalText ?? '', DECISION);
    findings.push(!searched ? `child ${d.childSessionId} made no read or grep` : cited && `child: ${cited}`);
  }
  reasons.push(findings.includes(null) ? null : findings.join('; '));
  return verdict(reasons);
};
