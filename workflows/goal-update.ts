import type { GoalCriterion, GoalSnapshot, GoalUpdateRequest, GoalUpdateResult } from '../core/goal/contract.js';
import { ADVANCING } from '../core/goal/status.js';
import { ambiguity, checkProblems, evidenceProblem, type EvidenceProblem, refusalCode } from '../core/goal/check.js';
import type { ErrorCode } from '../core/error-codes.js';

/** What {@link applyGoalUpdate} decided: the committed snapshot, or a refusal that changes nothing but the audit record. */
export interface GoalUpdateOutcome {
  next?: GoalSnapshot;
  result: GoalUpdateResult;
  /** A refused completion audit, kept on the snapshot for `goal show`. */
  audit?: GoalSnapshot['lastAudit'];
}

/** Criteria a Goal may hold. */
export const MAX_CRITERIA = 50;

/**
 * Applies one `goal_update` (GL30–GL32) atomically: new criteria, their
 * settlements and the completion commit together at revision + 1, or —
 * when the revision is stale, the Goal is not advancing, a settlement is
 * invalid or the completion audit refuses — nothing changes (the checklist
 * and the revision roll back together). Evidence: a criterion that needs it
 * is satisfied only by a receipt the `goal_update` activity found in this
 * Goal's session with authority `authoritative` and verdict `passed`;
 * `derived` receipts are recorded but are not evidence; a criterion that owns
 * a check takes only a fresh receipt of that command (core/goal/check.ts:
 * `evidence_not_from_check`, `evidence_stale`); an id more than one call holds
 * is refused `evidence_ambiguous`. The refusal's code is the first typed
 * evidence code among its problems, else `update_refused`. Completion needs
 * every criterion settled (`satisfied` or `dropped`); a Goal with no
 * criteria may complete (GL31). Pure.
 */
export function applyGoalUpdate(snap: GoalSnapshot, req: GoalUpdateRequest, nowMs: number): GoalUpdateOutcome {
  const refuse = (code: ErrorCode, problems: string[]): GoalUpdateOutcome => ({
    result: { ok: false, code, problems, revision: snap.revision, status: snap.state.status },
    ...(req.complete ? { audit: { ok: false, problems, atMs: nowMs } } : {}),
  });
  if (req.expectedRevision !== snap.revision) {
    return refuse('stale_revision', [
      `the goal is at revision ${snap.revision}, not ${req.expectedRevision}: call goal_get and try again`,
    ]);
  }
  const st = snap.state.status;
  if (!ADVANCING.has(st)) {
    // GL31: a paused (or stopped) Goal is not changed, let alone completed, from a turn it does not own.
    return refuse('goal_not_active', [`the goal is ${st}; only an advancing goal is updated by its own turns`]);
  }
  const found: EvidenceProblem[] = [];
  const problem = (text: string) => found.push({ code: 'update_refused', text });
  const criteria = withAdded(snap.criteria, req.add ?? [], problem);
  if (criteria.length > MAX_CRITERIA) problem(`a goal holds at most ${MAX_CRITERIA} criteria`);
  for (const s of req.settle ?? []) settle(criteria, s, req.receipts, found);
  if (found.length > 0)
    return refuse(
      refusalCode(found, 'update_refused'),
      found.map((p) => p.text),
    );
  const open = req.complete ? criteria.filter((c) => c.status === 'pending') : [];
  if (open.length > 0) {
    return refuse(
      'audit_refused',
      open.map((c) => `${c.id} is not settled: ${c.text}${c.needsEvidence ? ' (needs a passing receipt)' : ''}`),
    );
  }
  return committed(snap, criteria, req.complete === true, nowMs);
}

type Settlement = NonNullable<GoalUpdateRequest['settle']>[number];
type Receipts = GoalUpdateRequest['receipts'];

/** A copy of `criteria` with the new ones appended (`cr_<n>`, pending); a problem for each empty text or bad check. */
function withAdded(
  criteria: readonly GoalCriterion[],
  add: NonNullable<GoalUpdateRequest['add']>,
  problem: (text: string) => void,
): GoalCriterion[] {
  const out = criteria.map((c) => ({ ...c }));
  let n = out.length;
  for (const a of add) {
    if (a.text.trim() === '') problem('a new criterion needs text');
    const check = a.check?.trim();
    if (a.check !== undefined)
      for (const p of checkProblems(a.check, `the check of new criterion cr_${n + 1}`)) problem(p);
    out.push({
      id: `cr_${++n}`,
      text: a.text.trim(),
      // A criterion that owns a check is satisfied only by that check's receipt: it always needs evidence.
      needsEvidence: a.needsEvidence || check !== undefined,
      ...(check ? { check } : {}),
      status: 'pending',
    });
  }
  return out;
}

/** Applies one settlement to its criterion in `criteria` (mutated), or adds the reason it is refused to `found`. */
function settle(criteria: GoalCriterion[], s: Settlement, receipts: Receipts, found: EvidenceProblem[]): void {
  const problem = (text: string) => void found.push({ code: 'update_refused', text: `${s.id}${text}` });
  const c = criteria.find((k) => k.id === s.id);
  if (!c) return problem(`: no such criterion (the goal has ${criteria.map((k) => k.id).join(', ') || 'none'})`);
  if (c.watch) return problem(` is owned by the release watch: only its report settles it`);
  if (c.status !== 'pending' && c.status !== s.status) return problem(` is already ${c.status}`);
  if (s.status === 'dropped') {
    // An evidence criterion is settled by a passing check, never dropped by the model: that would skip the check.
    if (c.needsEvidence)
      return problem(` needs evidence: it is satisfied by a passing check's receipt, it cannot be dropped`);
    c.status = 'dropped';
    return;
  }
  if (!c.needsEvidence) return settleWithoutEvidence(c, s, receipts, found, problem);
  const why = evidenceProblem(c, s.receiptId, s.receiptId ? receipts[s.receiptId] : undefined);
  if (why) {
    found.push({ code: why.code, text: `${s.id} needs evidence: ${why.text}` });
    return;
  }
  c.status = 'satisfied';
  c.evidence = { receiptId: s.receiptId!, callId: receipts[s.receiptId!]!.callId! };
}

/** A criterion that needs no evidence is satisfied; a receipt it names must be one call's of this Goal's session. */
function settleWithoutEvidence(
  c: GoalCriterion,
  s: Settlement,
  receipts: Receipts,
  found: EvidenceProblem[],
  problem: (text: string) => void,
): void {
  if (s.receiptId) {
    const r = receipts[s.receiptId];
    const twice = r?.found ? ambiguity(s.receiptId, r) : null;
    if (twice) {
      found.push({ code: twice.code, text: `${s.id}: ${twice.text}` });
      return;
    }
    if (!r?.found || !r.callId)
      return problem(`: ${s.receiptId} is not a receipt of a shell call in this goal's session`);
    c.evidence = { receiptId: s.receiptId, callId: r.callId };
  }
  c.status = 'satisfied';
}

/** The committed update: the criteria at revision + 1 and, for a completion, the Goal completed with a passing audit. */
function committed(snap: GoalSnapshot, settled: GoalCriterion[], complete: boolean, nowMs: number): GoalUpdateOutcome {
  const criteria = settled.map((c) => ({ ...c }));
  const next: GoalSnapshot = {
    ...snap,
    criteria,
    revision: snap.revision + 1,
    updatedAtMs: nowMs,
    ...(complete
      ? { state: { status: 'completed' as const }, lastAudit: { ok: true, problems: [], atMs: nowMs } }
      : {}),
  };
  return { next, result: { ok: true, revision: next.revision, status: next.state.status, criteria } };
}
