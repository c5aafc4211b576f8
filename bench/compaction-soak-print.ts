/**
 * Output of bench/compaction-soak.ts: a plain table (one figure a line, the
 * two runs side by side, then one line per compaction) or the same as JSON.
 */
import { totalTokens, type RunFigures } from './compaction-soak-figures.js';

/** What the bench measured. */
export interface Soak {
  turns: number;
  window: { windowTokens: number; usableTokens: number };
  /** Whether the scripted provider refused requests over the window (script `contextWindow`). */
  windowEnforced: boolean;
  compacted: RunFigures;
  baseline: RunFigures;
  /** Usage tokens of both runs over the turns before the baseline's overflow turn. */
  upTo: { beforeTurn: number | null; compacted: number; baseline: number };
}

const triggers = (f: RunFigures) => {
  const by: Record<string, number> = {};
  for (const c of f.compactions) by[c.trigger] = (by[c.trigger] ?? 0) + 1;
  return by;
};

const kv = (o: Record<string, number>) =>
  Object.entries(o)
    .map(([k, v]) => `${k} ${v}`)
    .join(', ') || '-';

/** A reason cut to fit a table cell (the whole one is printed under the table). */
const short = (reason: string | null) =>
  reason === null ? '-' : reason.length > 40 ? `${reason.slice(0, 39)}…` : reason;

/** The rows of the side-by-side table: label, compacted, baseline. */
function rows(s: Soak): [string, string, string][] {
  const both = (f: (r: RunFigures) => unknown): [string, string] => [String(f(s.compacted)), String(f(s.baseline))];
  const pct = (n: number) => `${Math.round((n / s.window.windowTokens) * 100)} %`;
  return [
    ['goal status', ...both((r) => r.goalStatus)],
    ['ended by the bench', ...both((r) => short(r.endedBy))],
    ['turns completed: turn ends / goal spent.turns', ...both((r) => `${r.turnEnds.completed ?? 0} / ${r.turns}`)],
    ['turn ends', ...both((r) => kv(r.turnEnds))],
    ['main requests / summary requests', ...both((r) => `${r.mainRequests} / ${r.compactionRequests}`)],
    ['compactions (by trigger)', ...both((r) => `${r.compactions.length} (${kv(triggers(r))})`)],
    ['compaction failures', ...both((r) => r.compactionFailures.length)],
    [
      `largest request, BPE tokens (of window ${s.window.windowTokens})`,
      ...both(
        (r) => `${r.largestRequest.tokens} (${pct(r.largestRequest.tokens)}, turn ${r.largestRequest.turn ?? '?'})`,
      ),
    ],
    ["largest request, Zuno's estimate (usage snapshot)", ...both((r) => r.largestRecordedEstimate)],
    ['largest input the provider reported', ...both((r) => r.largestReportedInput)],
    ["requests over the window by the provider's count (chars/4)", ...both((r) => r.providerOverWindow)],
    [
      `requests over usable ${s.window.usableTokens} / over window`,
      ...both((r) => `${r.overUsable} / ${r.overWindow}`),
    ],
    ['baseline overflow turn (turns count from 0)', '-', String(s.baseline.overflowTurn ?? 'none')],
    [
      s.upTo.beforeTurn === null
        ? 'usage tokens, whole run (baseline never overflowed)'
        : `usage tokens, turns 0–${s.upTo.beforeTurn - 1} (before the baseline's overflow)`,
      String(s.upTo.compacted),
      String(s.upTo.baseline),
    ],
    ['usage tokens, whole run', ...both(totalTokens)],
    ['tokens the Goal counted (spent.tokens)', ...both((r) => r.goalTokens)],
    ['session history events (sum over runs)', ...both((r) => r.history.events)],
    ['session continue-as-new', ...both((r) => r.history.continueAsNew)],
    ['largest session run, events', ...both((r) => r.history.largestRun)],
    [
      'goal history events / continue-as-new',
      ...both((r) => `${r.goalHistory.events} / ${r.goalHistory.continueAsNew}`),
    ],
    ['wall time, s', ...both((r) => (r.wallMs / 1000).toFixed(1))],
  ];
}

/** Prints the table and the compactions of the compacted run. */
export function printSoak(s: Soak): void {
  const table = [['', 'compacted', 'baseline'] as [string, string, string], ...rows(s)];
  const w = [0, 1, 2].map((i) => Math.max(...table.map((r) => r[i]!.length)));
  console.log(
    `\nlong Goal of ${s.turns} turns, window ${s.window.windowTokens} (usable ${s.window.usableTokens}); provider enforces the window: ${s.windowEnforced ? 'yes' : 'no'}`,
  );
  for (const r of table) console.log(`${r[0].padEnd(w[0]!)}  ${r[1].padStart(w[1]!)}  ${r[2].padStart(w[2]!)}`);
  for (const r of [s.compacted, s.baseline]) if (r.endedBy) console.log(`${r.label} ended by the bench: ${r.endedBy}`);
  const cs = s.compacted.compactions;
  if (cs.length === 0) return;
  console.log('\ncompactions of the compacted run (usage tokens per turn: average of up to 3 turns before / after)');
  console.log('turn.step  trigger        used/limit     before→after   per turn before→after  summary tokens');
  for (const c of cs) {
    const at = `${c.turn}.${c.step}`.padEnd(9);
    const ul = `${c.usedTokens ?? '?'}/${c.limitTokens ?? '?'}`.padEnd(14);
    const ba = `${c.beforeTokens ?? '?'}→${c.afterTokens ?? 'unpublished'}`.padEnd(14);
    const pt = `${c.perTurnBefore ?? '?'}→${c.perTurnAfter ?? '?'}`.padEnd(22);
    console.log(`${at}  ${c.trigger.padEnd(13)}  ${ul} ${ba} ${pt} ${c.summaryTokens}`);
  }
  for (const f of s.compacted.compactionFailures) console.log(`compaction failed: ${f.code}: ${f.message}`);
}

/** The figures as JSON (Maps as objects). */
export function soakJson(s: Soak): unknown {
  const run = (r: RunFigures) => ({
    ...r,
    tokensByTurn: Object.fromEntries(r.tokensByTurn),
    totalTokens: totalTokens(r),
  });
  return { ...s, compacted: run(s.compacted), baseline: run(s.baseline) };
}
