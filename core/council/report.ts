/**
 * The structured seat report and its validity rule (DC25; DC27 SEED-GAP
 * "the structured report schema and the validity rule", decided in
 * docs/council.md). A seat's final answer must end with one fenced
 * ```json block holding `{summary, findings, unknowns}`; the LAST such block
 * of the final text is the report. Deterministic (shared by the prompt, the
 * `readSeatReport` activity and tests).
 */
import { z } from 'zod';

/** One finding: what is wrong, where, and the evidence read. */
export const seatFindingSchema = z.strictObject({
  severity: z.enum(['high', 'medium', 'low']),
  /** Workspace-relative path. */
  file: z.string().trim().min(1),
  /** 1-based line in `file` (in the reviewed revision). */
  line: z.number().int().min(1),
  claim: z.string().trim().min(1),
  /** What the seat read that shows it (quoted code, a diff hunk). */
  evidence: z.string().trim().min(1),
});

/** The report a seat ends with. */
export const seatReportSchema = z.strictObject({
  summary: z.string().trim().min(1),
  findings: z.array(seatFindingSchema).max(50),
  /** What the seat did not check or could not decide (explicit unknowns, DC24). */
  unknowns: z.array(z.string().trim().min(1)).max(50),
});

export type SeatFinding = z.infer<typeof seatFindingSchema>;
export type SeatReport = z.infer<typeof seatReportSchema>;

/** A report's validity (DC25: a fact separate from the seat's status). */
export type ReportValidity = 'valid' | 'invalid' | 'missing';

/** What {@link parseSeatReport} decided. */
export type ParsedSeatReport =
  { validity: 'valid'; report: SeatReport } | { validity: 'invalid' | 'missing'; problem: string };

const FENCE = /```json[ \t]*\r?\n([\s\S]*?)\r?\n?```/g;

/**
 * The validity rule: `text` null/blank → `missing`; no ```json fenced block,
 * a block that is not JSON, or JSON that does not match
 * {@link seatReportSchema} exactly (unknown keys are refused) → `invalid`,
 * with a one-line problem; else `valid` with the report. Pure.
 */
export function parseSeatReport(text: string | null | undefined): ParsedSeatReport {
  if (text === null || text === undefined || text.trim() === '')
    return { validity: 'missing', problem: 'the seat gave no final answer' };
  const blocks = [...text.matchAll(FENCE)];
  const last = blocks[blocks.length - 1];
  if (!last) return { validity: 'invalid', problem: 'the final answer has no ```json report block' };
  let json: unknown;
  try {
    json = JSON.parse(last[1]!);
  } catch (err) {
    return { validity: 'invalid', problem: `the report block is not JSON: ${(err as Error).message}` };
  }
  const parsed = seatReportSchema.safeParse(json);
  if (!parsed.success) {
    const first = parsed.error.issues[0]!;
    const at = first.path.length ? first.path.join('.') : 'report';
    return { validity: 'invalid', problem: `the report does not match the schema: ${at}: ${first.message}` };
  }
  return { validity: 'valid', report: parsed.data };
}

/** The report format as the seat prompt states it. */
export const REPORT_FORMAT = [
  'End your final answer with exactly one fenced ```json block, and nothing after it:',
  '```json',
  '{"summary": "<one paragraph>",',
  ' "findings": [{"severity": "high|medium|low", "file": "<path>", "line": <1-based line>, "claim": "<what is wrong>", "evidence": "<the code or diff lines that show it>"}],',
  ' "unknowns": ["<what you did not check or could not decide>"]}',
  '```',
  'No other keys. `findings` and `unknowns` may be empty lists; `summary` may not be empty.',
].join('\n');
