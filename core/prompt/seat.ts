/**
 * The `runtime.task_context` segment of a Council seat's requests (DC24,
 * issue 32): which seat and attempt, the hard deadline, the report format,
 * filled into the `prompts/seat.md` template. Pure.
 */
import { REPORT_FORMAT } from '../council/report.js';

/** A seat attempt as its child session's delegation link records it. */
export interface SeatFacts {
  index: number;
  of: number;
  attempt: number;
  /** Absent in seats started before issue 32: the segment then says the deadline is in the task. */
  maxAttempts?: number;
  /** The seats' hard deadline, Unix ms (workflow time). */
  deadlineMs?: number;
}

/**
 * The template with `{{index}} {{of}} {{attempt}} {{max_attempts}}
 * {{deadline_iso}} {{deadline_ms}} {{report_format}}` filled. An unknown
 * placeholder is left as written (a test checks the template uses only these).
 */
export function renderSeatContext(template: string, s: SeatFacts): string {
  const values: Record<string, string> = {
    index: String(s.index),
    of: String(s.of),
    attempt: String(s.attempt),
    max_attempts: s.maxAttempts === undefined ? '?' : String(s.maxAttempts),
    deadline_iso: s.deadlineMs === undefined ? 'stated in your task' : new Date(s.deadlineMs).toISOString(),
    deadline_ms: s.deadlineMs === undefined ? 'stated in your task' : String(s.deadlineMs),
    report_format: REPORT_FORMAT,
  };
  return template.replace(/\{\{(\w+)\}\}/g, (whole, name: string) => values[name] ?? whole);
}

/** The placeholders {@link renderSeatContext} fills. */
export const SEAT_PLACEHOLDERS = [
  'index',
  'of',
  'attempt',
  'max_attempts',
  'deadline_iso',
  'deadline_ms',
  'report_format',
] as const;
