import { describe, expect, it } from 'vitest';
import { durationText, seatSummary } from '../../core/council/contract.js';
import { BALANCED_REVIEW, councilPreset } from '../../core/council/preset.js';
import { seatPrompt, synthesisPrompt, SYNTHESIS_HEADER } from '../../core/council/prompt.js';
import { parseSeatReport } from '../../core/council/report.js';
import { AGENT_ROLES } from '../../core/agents.js';
import { councilRunDeclaration } from '../../core/tools/council-run.js';

/** The Council's pure core (core/council/): the frozen preset, the report rule, the prompts. */
const report = (r: unknown) => `Findings below.\n\n\`\`\`json\n${JSON.stringify(r)}\n\`\`\`\n`;
const ok = {
  summary: 'One bug.',
  findings: [{ severity: 'high', file: 'a.js', line: 3, claim: 'off by one', evidence: 'a.js:3 i <= n' }],
  unknowns: [],
};

describe('the balanced-review preset (DC23)', () => {
  it('is 600 000 ms in all, 540 000 for the seats, 60 000 for synthesis; three reviewer seats; quorum 2; one retry', () => {
    expect(BALANCED_REVIEW).toMatchObject({ totalMs: 600_000, seatDeadlineMs: 540_000, synthesisReserveMs: 60_000 });
    expect(BALANCED_REVIEW.totalMs - BALANCED_REVIEW.synthesisReserveMs).toBe(BALANCED_REVIEW.seatDeadlineMs);
    expect(BALANCED_REVIEW.seats.map((s) => s.agent)).toEqual([
      'correctness-review',
      'security-review',
      'tests-review',
    ]);
    for (const s of BALANCED_REVIEW.seats)
      expect(AGENT_ROLES[s.agent]).toMatchObject({ readOnly: true, output: 'council_report' });
    expect([BALANCED_REVIEW.quorum, BALANCED_REVIEW.retries]).toEqual([2, 1]);
    expect(councilPreset('fast')).toBeUndefined();
  });

  it('is frozen: nothing changes it at run time', () => {
    expect(Object.isFrozen(BALANCED_REVIEW)).toBe(true);
    expect(Object.isFrozen(BALANCED_REVIEW.seats)).toBe(true);
    expect(() => ((BALANCED_REVIEW as { totalMs: number }).totalMs = 1)).toThrow(TypeError);
    expect(BALANCED_REVIEW.totalMs).toBe(600_000);
    // The tool's arguments cannot set a budget: refused, with a note.
    expect(councilRunDeclaration.args.safeParse({ question: 'q', deadline_ms: 5 }).success).toBe(false);
    expect(councilRunDeclaration.argumentNotes!({ question: 'q', deadline_ms: 5 }, [])[0]).toContain('frozen');
  });
});

describe('the seat report rule (DC25)', () => {
  it('valid: the last ```json block matches the schema exactly', () => {
    expect(parseSeatReport(report(ok))).toEqual({ validity: 'valid', report: ok });
    expect(parseSeatReport(report({ summary: 'x', findings: [], unknowns: [] })).validity).toBe('valid');
    expect(parseSeatReport(`${report({ summary: 'old' })}\n${report(ok)}`).validity).toBe('valid');
  });
  it.each([
    ['no block', 'All fine.', /no ```json report block/],
    ['not JSON', '```json\n{summary: 1}\n```', /not JSON/],
    ['an unknown key', report({ ...ok, verdict: 'bad' }), /verdict|Unrecognized/],
    [
      'a finding without evidence',
      report({ ...ok, findings: [{ ...ok.findings[0], evidence: undefined }] }),
      /findings\.0\.evidence/,
    ],
    ['line 0', report({ ...ok, findings: [{ ...ok.findings[0], line: 0 }] }), /findings\.0\.line/],
    ['an empty summary', report({ ...ok, summary: ' ' }), /summary/],
    ['a valid block followed by an invalid one', `${report(ok)}\n${report({ summary: 'x' })}`, /findings/],
  ])('invalid: %s', (_what, text, problem) => {
    const r = parseSeatReport(text);
    expect(r.validity).toBe('invalid');
    expect(r.validity !== 'valid' && r.problem).toMatch(problem);
  });
  it('missing: no final text', () => {
    expect(parseSeatReport(null).validity).toBe('missing');
    expect(parseSeatReport('  ').validity).toBe('missing');
  });
});

describe('the prompts (DC24, DC27)', () => {
  it('a seat prompt states the time left in ms and the deadline as ISO and Unix ms, the scope and the format', () => {
    const deadlineMs = Date.UTC(2026, 11, 1, 12, 9, 0);
    const p = seatPrompt({
      index: 2,
      of: 3,
      agent: 'security-review',
      attempt: 1,
      maxAttempts: 2,
      question: 'Is it safe?',
      diffRange: 'HEAD~1..HEAD',
      diffPath: '.zuno/council/cr_x/diff.patch',
      nowMs: deadlineMs - 192_345,
      deadlineMs,
    });
    expect(p.split('\n')[0]).toBe('Council seat 2/3 · security-review · attempt 1/2');
    expect(p).toContain(
      `Hard time limit: 192345 ms remain for this seat. Deadline: 2026-12-01T12:09:00.000Z (Unix ms ${deadlineMs}).`,
    );
    expect(p).toContain('evidence-backed partial conclusions and explicit unknowns first');
    expect(p).toContain('rather than scanning the whole repository');
    expect(p).toContain('.zuno/council/cr_x/diff.patch');
    expect(p).toContain('```json');
    expect(p).not.toContain(SYNTHESIS_HEADER);
  });
  it('the synthesis prompt carries the valid reports and names the seats without one', () => {
    const p = synthesisPrompt({
      question: 'q',
      seats: [{ index: 1, agent: 'correctness-review', report: ok as never }],
      missing: [{ index: 2, agent: 'security-review', status: 'timed_out', validity: 'missing' }],
    });
    expect(p.startsWith(SYNTHESIS_HEADER)).toBe(true);
    expect(p).toContain('"claim": "off by one"');
    expect(p).toContain('- seat 2 security-review: timed_out, report missing');
    expect(p).not.toContain('· attempt');
  });
  it('the Temporal UI line of a seat', () => {
    expect(seatSummary(2, 3, 'security-review', 192_345)).toBe('seat 2/3 security-review · 3 m 12 s left');
    expect(durationText(-5)).toBe('0 s');
  });
});
