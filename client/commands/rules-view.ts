/**
 * The rule files of a session as `zuno session show` lists them (SE10,
 * SPEC-DIGEST SE27): per turn, the files in force (path, bytes) and the
 * files skipped whole with why, read from the stored `instruction.*` events.
 */
import type { ProjectionStore } from '../../activities/projection/index.js';
import { EV, parseEventData } from '../../core/events.js';
import type { RuleScope } from '../../core/rule-budget.js';

/** The rule files of one turn. Sizes in bytes. */
export interface TurnRules {
  turn: number;
  /** The whole budget of the turn. */
  budget: number;
  inForce: { path: string; scope: RuleScope; bytes: number; sha256: string }[];
  /** Skipped whole: the file's size did not fit what was left of the budget. */
  skipped: { path: string; scope: RuleScope; bytes: number; remaining: number; reason: 'over_budget' }[];
}

/** Every turn's rule files in turn order, from the session's `instruction.in_force` / `instruction.not_in_force` events. */
export async function loadTurnRules(store: ProjectionStore, sessionId: string): Promise<TurnRules[]> {
  const turns = new Map<number, TurnRules>();
  const of = (turn: number, budget: number) => {
    const t = turns.get(turn) ?? { turn, budget, inForce: [], skipped: [] };
    turns.set(turn, t);
    return t;
  };
  for (const e of await store.eventsOfType(sessionId, EV.instructionInForce)) {
    const d = parseEventData(EV.instructionInForce, e.data);
    if (d) of(d.turn, d.budget).inForce = d.sources;
  }
  for (const e of await store.eventsOfType(sessionId, EV.instructionNotInForce)) {
    const d = parseEventData(EV.instructionNotInForce, e.data);
    if (d) {
      of(d.turn, d.budget).skipped.push({
        path: d.source,
        scope: d.scope,
        bytes: d.bytes,
        remaining: d.remaining,
        reason: d.reason,
      });
    }
  }
  return [...turns.values()].sort((a, b) => a.turn - b.turn);
}

/**
 * Human rendering: one block per run of consecutive turns with the same
 * rule files, one line per file. Empty when no turn had a rule file.
 */
export function renderTurnRules(turns: readonly TurnRules[]): string {
  if (turns.every((t) => t.inForce.length === 0 && t.skipped.length === 0)) return '';
  const key = (t: TurnRules) => JSON.stringify([t.budget, t.inForce, t.skipped]);
  const groups: { first: number; last: number; t: TurnRules }[] = [];
  for (const t of turns) {
    const g = groups.at(-1);
    if (g && key(g.t) === key(t)) g.last = t.turn;
    else groups.push({ first: t.turn, last: t.turn, t });
  }
  const lines: string[] = [];
  for (const { first, last, t } of groups) {
    // Turns count from 1 for people (the stored events count from 0).
    lines.push('', `rule files (${first === last ? `turn ${first + 1}` : `turns ${first + 1}–${last + 1}`}):`);
    for (const f of t.inForce) lines.push(`  in force ${f.path} (${f.scope}, ${f.bytes} bytes)`);
    for (const s of t.skipped) {
      lines.push(
        `  skipped ${s.path} (${s.scope}, ${s.bytes} bytes): over budget, ` +
          `${s.remaining} of the ${t.budget}-byte rule budget left; never truncated`,
      );
    }
    if (t.inForce.length === 0 && t.skipped.length === 0) lines.push('  none');
  }
  return `${lines.join('\n')}\n`;
}

/** The `zuno run` line of a warning-level `instruction.not_in_force` notice. */
export function notInForceLine(d: { source: string; bytes: number; budget: number; remaining: number }): string {
  return (
    `(warning: rule file ${d.source} not in force: ${d.bytes} bytes do not fit the ${d.remaining} bytes ` +
    `left of the ${d.budget}-byte rule budget; skipped whole, never truncated)`
  );
}
