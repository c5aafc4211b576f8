/**
 * A long Goal against a small context window (issue 28 item 7; prints
 * figures, asserts nothing). One scripted Goal of T turns (each a Todo
 * change and a `read` of a ~2 KB file, then a short answer; the last completes the
 * Goal: bench/compaction-soak-script.ts) runs twice on `zuno worker` in a
 * process of its own:
 *
 * - **compacted**: the session's context is `{windowTokens: W,
 *   outputReserveTokens: 2000, source: 'config'}` with the default
 *   `compaction` settings; the scripted provider also refuses a request over
 *   W with a real context-limit error when it knows `contextWindow`;
 * - **baseline**: `compaction.auto: false` and no window; cancelled at its
 *   first request over W tokens.
 *
 * A compacted run is cancelled too at a request over 2·W (compaction is not
 * keeping up), when its Goal stops by itself (paused, blocked), or after
 * 180 s without a request; the table says which.
 *
 * Printed per run: turns, compactions (count, triggers, each one's turn,
 * estimate, before/after and usage per turn around it), the largest request
 * (o200k BPE count of the captured body) against the window, total usage
 * tokens (the compacted run's up to the baseline's overflow turn beside the
 * baseline's), Temporal history events of the session (summed over its
 * continue-as-new runs) and wall time. `--json` prints the same as JSON.
 *
 *   npx tsx bench/compaction-soak.ts [--turns 300] [--window 16000] [--file-bytes 2000] [--summary-bytes 300] [--json]
 */
import { join } from 'node:path';
import { COMPACTION_DEFAULTS } from '../core/compaction/settings.js';
import { runFigures, tokensBefore, totalTokens, type RunFigures } from './compaction-soak-figures.js';
import { runSoak } from './compaction-soak-run.js';
import { soakScript, writeSoakWorkspace } from './compaction-soak-script.js';
import { printSoak, soakJson } from './compaction-soak-print.js';
import { badArgument, benchFlags, runBench, zunoBench } from './worker-procs.js';

const flags = benchFlags(
  'usage: npx tsx bench/compaction-soak.ts [--turns 300 (3..2000)] [--window 16000 (4000..1000000 tokens)] [--file-bytes 2000 (200..20000, read per turn)] [--summary-bytes 300 (0..65536, the scripted summary)] [--json]',
  {
    turns: { type: 'string', default: '300' },
    window: { type: 'string', default: '16000' },
    'file-bytes': { type: 'string', default: '2000' },
    'summary-bytes': { type: 'string', default: '300' },
    json: { type: 'boolean', default: false },
  },
);
const TURNS = Number(flags.turns);
const WINDOW = Number(flags.window);
if (!Number.isInteger(TURNS) || TURNS < 3 || TURNS > 2000) badArgument('--turns must be an integer in 3..2000');
if (!Number.isInteger(WINDOW) || WINDOW < 4000 || WINDOW > 1_000_000)
  badArgument('--window must be an integer in 4000..1000000');
const FILE_BYTES = Number(flags['file-bytes']);
if (!Number.isInteger(FILE_BYTES) || FILE_BYTES < 200 || FILE_BYTES > 20_000)
  badArgument('--file-bytes must be an integer in 200..20000');
const SUMMARY_BYTES = Number(flags['summary-bytes']);
if (!Number.isInteger(SUMMARY_BYTES) || SUMMARY_BYTES < 0 || SUMMARY_BYTES > 65_536)
  badArgument('--summary-bytes must be an integer in 0..65536');
const RESERVE = 2000;
/** No provider request for this long ends a run as stalled. */
const STALL_MS = 180_000;

async function main(): Promise<void> {
  const { root, h, close } = await zunoBench('compaction-soak');
  try {
    const workspace = join(root, 'ws');
    writeSoakWorkspace(workspace, TURNS, FILE_BYTES);
    const window = { windowTokens: WINDOW, usableTokens: WINDOW - RESERVE };
    const progress = (s: string) => process.stderr.write(`compaction-soak: ${s}\n`);

    progress(`baseline: ${TURNS}-turn Goal, compaction.auto false, no window; cancelled at a request over ${WINDOW}`);
    const baselineRun = await runSoak(h, {
      label: 'baseline',
      workspace,
      script: soakScript(TURNS).script,
      compaction: { ...COMPACTION_DEFAULTS, auto: false },
      stopOverTokens: WINDOW,
      stallMs: STALL_MS,
    });
    const baseline = await runFigures(h.store, h.client, baselineRun, window);

    const { script, windowEnforced } = soakScript(TURNS, WINDOW, SUMMARY_BYTES);
    progress(
      `compacted: window ${WINDOW}, reserve ${RESERVE}, default compaction; provider enforces it: ${windowEnforced}`,
    );
    const compactedRun = await runSoak(h, {
      label: 'compacted',
      workspace,
      script,
      context: { windowTokens: WINDOW, outputReserveTokens: RESERVE, source: 'config' },
      compaction: COMPACTION_DEFAULTS,
      // Compaction keeps requests inside the window; one at twice the window means it does not: stop there.
      stopOverTokens: 2 * WINDOW,
      stallMs: STALL_MS,
    });
    const compacted = await runFigures(h.store, h.client, compactedRun, window);

    const soak = { turns: TURNS, window, windowEnforced, compacted, baseline, upTo: comparison(compacted, baseline) };
    if (flags.json) console.log(JSON.stringify(soakJson(soak), null, 2));
    else printSoak(soak);
  } finally {
    await close();
  }
}

/** Usage tokens of both runs over the turns before the baseline's overflow turn (all its turns if it never overflowed). */
function comparison(compacted: RunFigures, baseline: RunFigures) {
  const turn = baseline.overflowTurn ?? Number.POSITIVE_INFINITY;
  const base = baseline.overflowTurn === null ? totalTokens(baseline) : tokensBefore(baseline, turn);
  return { beforeTurn: baseline.overflowTurn, compacted: tokensBefore(compacted, turn), baseline: base };
}

await runBench(main);
