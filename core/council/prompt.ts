/**
 * The Council's prompts (DC24, DC27 SEED-GAP "the synthesis model and
 * prompt", decided in docs/council.md). Deterministic: the seat prompt is
 * built in the workflow before EACH attempt, from workflow time.
 */
import type { SeatReport } from './report.js';
import { REPORT_FORMAT } from './report.js';

/** The words every synthesis request's first user message starts with (a local-provider script thread matches on it). */
export const SYNTHESIS_HEADER = 'Council synthesis for the balanced-review preset';

/** What a seat attempt's prompt states. */
export interface SeatPromptInput {
  index: number;
  of: number;
  agent: string;
  attempt: number;
  maxAttempts: number;
  question: string;
  diffRange?: string;
  /** Workspace-relative path of the diff file (prepareCouncil). */
  diffPath?: string;
  files?: string[];
  /** Workflow time now and the seats' deadline, Unix ms. */
  nowMs: number;
  deadlineMs: number;
  /** Why the previous attempt's report was invalid (a retry). */
  previousProblem?: string;
}

/**
 * A seat attempt's first input (DC24): who it is (`Council seat 2/3 ·
 * security-review · attempt 1/2`), the question and the change, the remaining
 * hard time in ms and the UTC deadline both as ISO and as Unix ms, the scope
 * instruction (evidence-backed partial conclusions and explicit unknowns
 * first, never a scan of the whole repository) and the report format. Pure.
 */
export function seatPrompt(p: SeatPromptInput): string {
  const leftMs = Math.max(0, p.deadlineMs - p.nowMs);
  const change = p.diffRange
    ? [
        `Change under review: \`git diff ${p.diffRange}\`.` +
          (p.diffPath ? ` Its full text is in ${p.diffPath} — read it first with the read tool.` : ''),
        ...(p.files && p.files.length ? [`Files it touches: ${p.files.join(', ')}.`] : []),
      ]
    : ['No diff was given: review the code the question names.'];
  return [
    `Council seat ${p.index}/${p.of} · ${p.agent} · attempt ${p.attempt}/${p.maxAttempts}`,
    '',
    `Question: ${p.question}`,
    ...change,
    '',
    `Hard time limit: ${leftMs} ms remain for this seat. Deadline: ${new Date(p.deadlineMs).toISOString()} (Unix ms ${p.deadlineMs}).`,
    'The host enforces this deadline: work still running then is cancelled and its report is not counted. This prompt grants no extra time.',
    '',
    'Scope: give evidence-backed partial conclusions and explicit unknowns first, in the report format below, rather than scanning the whole repository.',
    'Read the diff and only the code around it that your focus needs. A finding names a file, a line and the evidence you read.',
    ...(p.previousProblem
      ? [
          '',
          `Your previous attempt ended with a report the Council could not accept: ${p.previousProblem}. Follow the format exactly.`,
        ]
      : []),
    '',
    REPORT_FORMAT,
  ].join('\n');
}

/** A valid seat report, named, for the synthesis prompt. */
export interface SynthesisSeat {
  index: number;
  agent: string;
  report: SeatReport;
}

/**
 * The synthesis request's one user message: the question, the change, each
 * valid report as JSON, the seats that gave none, and the instruction
 * (agreed findings first — a finding two seats support, or one with strong
 * evidence — then disagreements, then unknowns; no new findings). Pure.
 */
export function synthesisPrompt(a: {
  question: string;
  diffRange?: string;
  seats: SynthesisSeat[];
  missing: { index: number; agent: string; status: string; validity: string }[];
}): string {
  return [
    `${SYNTHESIS_HEADER}.`,
    '',
    `Question: ${a.question}`,
    ...(a.diffRange ? [`Change reviewed: git diff ${a.diffRange}`] : []),
    '',
    'Seat reports (each valid against the Council report schema):',
    ...a.seats.map((s) => `Seat ${s.index} (${s.agent}):\n${JSON.stringify(s.report, null, 2)}`),
    ...(a.missing.length
      ? [
          '',
          'Seats without a valid report (their focus is not covered):',
          ...a.missing.map((m) => `- seat ${m.index} ${m.agent}: ${m.status}, report ${m.validity}`),
        ]
      : []),
    '',
    'Write the Council answer: first the findings the reports support, most severe first, each with its file:line and which seats found it;',
    'then where the seats disagree; then what remains unknown. Add no finding that no report contains. Plain Markdown, no tool calls.',
  ].join('\n');
}

/** System prompt of the synthesis request. */
export const SYNTHESIS_SYSTEM =
  'You synthesize the reports of a code-review Council. You only combine what the seats reported, with their evidence.';
