/**
 * The frozen `balanced-review` Council preset (DC5, DC23; issue 12 item 5;
 * SEED-GAPs decided in docs/council.md). Owned by the first-party pack: no
 * zuno.json key and no `council_run` argument changes it (the declaration
 * answers budget keys with a note, core/tools/council-run.ts). Deterministic.
 */

/** One seat of a preset: its place and the agent role it runs as (core/agents.ts). */
export interface CouncilSeatSpec {
  /** 1-based place (`seat 2/3`). */
  index: number;
  /** A reviewer role with `output: 'council_report'`. */
  agent: string;
}

/** A Council preset's descriptor. Durations in ms. */
export interface CouncilPreset {
  name: string;
  /** Total hard time of the Council, from its start (DC23: 600 000). */
  totalMs: number;
  /** Kept for the synthesis after the seats' deadline (DC23: 60 000). */
  synthesisReserveMs: number;
  /** The one deadline every seat shares, from the Council's start (DC23: totalMs − synthesisReserveMs = 540 000). */
  seatDeadlineMs: number;
  seats: readonly CouncilSeatSpec[];
  /** Valid terminal reports needed for the synthesis to run (DC25; SEED-GAP: 2, from the "0/2" display). */
  quorum: number;
  /**
   * Extra attempts of a seat whose child completed natively with an invalid
   * report (DC25; SEED-GAP: 1), within the same seat deadline. No other
   * outcome is ever retried.
   */
  retries: number;
}

/** `balanced-review`: three reviewer seats (correctness, security, tests) sharing 540 000 ms, 60 000 ms synthesis. */
export const BALANCED_REVIEW: Readonly<CouncilPreset> = Object.freeze({
  name: 'balanced-review',
  totalMs: 600_000,
  synthesisReserveMs: 60_000,
  seatDeadlineMs: 540_000,
  seats: Object.freeze([
    Object.freeze({ index: 1, agent: 'correctness-review' }),
    Object.freeze({ index: 2, agent: 'security-review' }),
    Object.freeze({ index: 3, agent: 'tests-review' }),
  ]),
  quorum: 2,
  retries: 1,
});

/** The presets a Council may run, by name (only `balanced-review` exists, DC27). */
export const COUNCIL_PRESETS: Readonly<Record<string, Readonly<CouncilPreset>>> = Object.freeze({
  'balanced-review': BALANCED_REVIEW,
});

/** The preset named `name`, or undefined for an unknown one. */
export function councilPreset(name: string): Readonly<CouncilPreset> | undefined {
  return Object.prototype.hasOwnProperty.call(COUNCIL_PRESETS, name) ? COUNCIL_PRESETS[name] : undefined;
}
