/**
 * How a Council reads in the terminal (`zuno council run`'s end, `zuno
 * council show`): one line per seat settlement as it happens, the table
 * of seat attempts (status, report validity, failure code, usage, child
 * session), then the synthesis. Pure.
 */
import type { SeatRecord } from '../../core/council/contract.js';
import type { CouncilRow } from '../../activities/projection/index.js';
import { councilPreset } from '../../core/council/preset.js';

/** One seat's settlement as a progress line (`✓ seat 1/3 correctness-review: completed, report valid (2 attempts)`). */
export function seatLine(s: SeatRecord): string {
  const mark = s.validity === 'valid' ? '✓' : '✗';
  const tries = s.attempts.length > 1 ? ` (${s.attempts.length} attempts)` : '';
  const cancel = s.cancelRequested ? '; its child was asked to cancel' : '';
  const why = s.validity !== 'valid' ? s.attempts.at(-1)?.problem : undefined;
  return `${mark} seat ${s.index}/${s.of} ${s.agent}: ${s.status}, report ${s.validity}${tries}${cancel}${why ? ` — ${why}` : ''}`;
}

/** The seats of a stored Council (its `seats` JSON, parsed). */
export function seatsOf(row: CouncilRow): SeatRecord[] {
  return row.seats as SeatRecord[];
}

/** The columns of the seat table: one row per attempt. */
const SEAT_HEADER = [
  'SEAT',
  'AGENT',
  'ATTEMPT',
  'STATUS',
  'REPORT',
  'CODE',
  'REQUESTS',
  'TOKENS IN/OUT',
  'CHILD SESSION',
] as const;

/**
 * The seat table's rows (issue 25 item 7.2): every attempt of every seat —
 * its number, status (a running one too, with its child session from the
 * moment it starts), report validity, the child's failure code (`-` when
 * none), usage and child session. A seat that never started an attempt (the
 * deadline passed first) is one row with attempt `-`. The seat's
 * `cancelRequested` is shown on its last attempt. Pure.
 */
export function seatRows(seats: SeatRecord[]): string[][] {
  return seats.flatMap((s) => {
    const seat = [`${s.index}/${s.of}`, s.agent];
    const cancel = s.cancelRequested ? ' (cancel requested)' : '';
    if (s.attempts.length === 0) return [[...seat, '-', s.status + cancel, s.validity, '-', '0', '0/0', '-']];
    return s.attempts.map((a, i) => [
      ...seat,
      String(a.attempt),
      a.status + (i === s.attempts.length - 1 ? cancel : ''),
      a.validity,
      a.code ?? '-',
      String(a.usage.requests),
      `${a.usage.inputTokens}/${a.usage.outputTokens}`,
      a.childSessionId,
    ]);
  });
}

/**
 * The Council as `council show` and the end of `council run` print it: a
 * header (status, code, valid reports against the quorum), the question,
 * the diff range, the seat table ({@link seatRows}: one row per attempt)
 * and the synthesis. Pure.
 */
export function renderCouncil(row: CouncilRow): string {
  const seats = seatsOf(row);
  const header = [...SEAT_HEADER];
  const rows = seatRows(seats);
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const line = (cells: string[]) =>
    cells
      .map((c, i) => c.padEnd(widths[i]!))
      .join('  ')
      .trimEnd();
  const valid = seats.filter((s) => s.validity === 'valid').length;
  return [
    `council ${row.id} · ${row.preset} · ${row.status}${row.errorCode ? ` (${row.errorCode})` : ''} · ${valid}/${seats.length} valid reports (quorum ${councilPreset(row.preset)?.quorum ?? '?'})`,
    `question: ${row.question}`,
    ...(row.diffRange ? [`diff: ${row.diffRange}`] : []),
    '',
    line(header),
    ...rows.map(line),
    '',
    row.synthesis ? `synthesis:\n${row.synthesis}` : 'no synthesis',
    '',
  ].join('\n');
}
