/**
 * How a Council reads in the terminal (`zuno council run`'s end, `zuno
 * council show`): one line per seat settlement as it happens, the final
 * table of seats (status, report validity, attempts, usage), then the
 * synthesis. Pure.
 */
import type { SeatRecord } from '../../core/council/contract.js';
import type { CouncilRow } from '../../activities/projection/types.js';
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

/** The final table and the synthesis. */
export function renderCouncil(row: CouncilRow): string {
  const seats = seatsOf(row);
  const header = ['SEAT', 'AGENT', 'STATUS', 'REPORT', 'ATTEMPTS', 'REQUESTS', 'TOKENS IN/OUT', 'CHILD SESSION'];
  const rows = seats.map((s) => [
    `${s.index}/${s.of}`,
    s.agent,
    s.status + (s.cancelRequested ? ' (cancel requested)' : ''),
    s.validity,
    String(s.attempts.length),
    String(s.usage.requests),
    `${s.usage.inputTokens}/${s.usage.outputTokens}`,
    s.childSessionIds.at(-1) ?? '-',
  ]);
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
