/**
 * The rule files of one turn (SE10, SPEC-DIGEST SE27/SE28), decided once,
 * at the turn's first model request, and kept for every later step and
 * retry of that turn: an AGENTS.md edited during a turn (even by the agent
 * itself) applies from the next turn, and every request of the turn sends
 * the same segment bytes (a stable prompt prefix).
 *
 * What was decided is stored before the request goes out: the segment text
 * (a `prompt.segment` event, once per content digest), one warning-level
 * `instruction.not_in_force` per file skipped for the budget, and the
 * `instruction.in_force` record of the turn, in one transaction.
 */
import { createHash } from 'node:crypto';
import { ApplicationFailure } from '@temporalio/activity';
import { ApplicationFailureCategory } from '@temporalio/common';
import { ZunoError } from '../../core/errors.js';
import { EV, parseEventData } from '../../core/events.js';
import type { SystemSegment } from '../../core/messages.js';
import {
  renderRulesSegment,
  ruleBudgetBytes,
  rulesSource,
  RULE_FILE_UNREADABLE,
  RULES_SEGMENT_ID,
} from '../../core/rule-budget.js';
import type { NewEvent, ProjectionStore } from '../projection/types.js';
import { loadRuleFiles } from './rule-files.js';

/** Where and when: the session, its workspace root and the turn. */
export interface RulesTurnInput {
  sessionId: string;
  workspace: string;
  turn: number;
  atMs: number;
  /** The model's context window in tokens, when its config declares one (none does yet). */
  contextWindowTokens?: number;
}

/**
 * The `instructions.rules` system segment of this turn, or null when no
 * rule file with text is in force. The first call of a turn reads the
 * files (rule-files.ts) and records the decision; later calls of the same
 * turn return the recorded segment without reading.
 * @throws ApplicationFailure, non-retryable and BENIGN (the worker logs it at
 *   DEBUG, not WARN), type `rule_file_unreadable` (the session blocks, PR3),
 *   message naming the file and the fix, when a
 *   local rule file exists but cannot be read; nothing is recorded then.
 */
export async function rulesForTurn(store: ProjectionStore, input: RulesTurnInput): Promise<SystemSegment | null> {
  const { sessionId, turn, atMs } = input;
  const recorded = await store.lastEvent(sessionId, EV.instructionInForce);
  const record = recorded ? parseEventData(EV.instructionInForce, recorded.data) : null;
  if (record && record.turn === turn) {
    if (record.sha256 === null) return null;
    const stored = await storedSegment(store, sessionId, record.sha256);
    if (stored !== null) return { segment: RULES_SEGMENT_ID, text: stored, source: rulesSource(record.sources) };
    // Never expected (both are written in one transaction): read the files again rather than send no rules.
  }

  const budget = ruleBudgetBytes(input.contextWindowTokens);
  let files: Awaited<ReturnType<typeof loadRuleFiles>>;
  try {
    files = await loadRuleFiles(input.workspace, budget);
  } catch (err) {
    if (err instanceof ZunoError && err.code === RULE_FILE_UNREADABLE) {
      throw ApplicationFailure.create({
        message: err.message,
        type: RULE_FILE_UNREADABLE,
        nonRetryable: true,
        // An expected, user-fixable condition reported as the turn's typed outcome: no worker WARN line beside it.
        category: ApplicationFailureCategory.BENIGN,
        details: [err.details ?? {}],
      });
    }
    throw err;
  }
  const text = renderRulesSegment(files.inForce);
  const sha256 = text === null ? null : createHash('sha256').update(text, 'utf8').digest('hex');
  // One transaction: the segment's text, what was skipped, the decision.
  const events: NewEvent[] = [];
  if (text !== null && sha256 !== null) {
    events.push({
      id: `segment:${RULES_SEGMENT_ID}:${sha256}`,
      sessionId,
      type: EV.promptSegment,
      data: { segment: RULES_SEGMENT_ID, sha256, text },
      atMs,
    });
  }
  for (const [i, s] of files.skipped.entries()) {
    events.push({
      id: `turn_${turn}:rules:skipped:${i}`,
      sessionId,
      type: EV.instructionNotInForce,
      data: {
        turn,
        level: 'warning',
        reason: 'over_budget',
        source: s.entry.path,
        scope: s.entry.scope,
        bytes: s.bytes,
        budget: s.budget,
        remaining: s.remaining,
      },
      atMs,
    });
  }
  events.push({
    id: `turn_${turn}:rules`,
    sessionId,
    type: EV.instructionInForce,
    data: {
      turn,
      segment: RULES_SEGMENT_ID,
      sha256,
      budget: files.budget,
      sources: files.inForce.map((f) => ({ path: f.path, scope: f.scope, bytes: f.bytes, sha256: f.sha256 })),
    },
    atMs,
  });
  await store.writeBatch(
    sessionId,
    events.map((event) => ({ kind: 'event', event })),
  );
  return text === null ? null : { segment: RULES_SEGMENT_ID, text, source: rulesSource(files.inForce) };
}

/** The stored text of the rules segment with this digest, or null. */
async function storedSegment(store: ProjectionStore, sessionId: string, sha256: string): Promise<string | null> {
  for (const row of await store.eventsOfType(sessionId, EV.promptSegment)) {
    const d = parseEventData(EV.promptSegment, row.data);
    if (d && d.segment === RULES_SEGMENT_ID && d.sha256 === sha256) return d.text;
  }
  return null;
}

/** Sessions whose rules segment one worker remembers (least recently used out first). */
const TURN_RULES_SESSIONS = 256;

/**
 * {@link rulesForTurn} remembered per session for its current turn (issue
 * 13): the segment is decided once per turn and recorded, so the later
 * steps of the turn on this worker take it from memory instead of reading
 * the record back (a read whose cost grows with the turn's events).
 */
export class TurnRules {
  private readonly known = new Map<string, { turn: number; segment: SystemSegment | null }>();

  constructor(private readonly store: ProjectionStore) {}

  /** The turn's rules segment; see {@link rulesForTurn} (same errors). */
  async of(input: RulesTurnInput): Promise<SystemSegment | null> {
    const hit = this.known.get(input.sessionId);
    if (hit?.turn === input.turn) return hit.segment;
    const segment = await rulesForTurn(this.store, input);
    this.known.delete(input.sessionId);
    this.known.set(input.sessionId, { turn: input.turn, segment });
    if (this.known.size > TURN_RULES_SESSIONS) this.known.delete(this.known.keys().next().value!);
    return segment;
  }
}
