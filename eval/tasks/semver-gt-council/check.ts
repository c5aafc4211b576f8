/**
 * Checker of semver-gt-council: the Council succeeded, a valid seat's report
 * (read from the seat's stored child session) has a finding at
 * functions/gt.js line 2, the synthesis names functions/gt.js, and the
 * workspace is untouched.
 */
import { type Checker, unchanged, verdict } from '../../checks.js';
import { type CouncilRecord, showCouncil, showSession } from '../../receipts.js';
import type { ZunoEnv } from '../../zuno.js';

/** One finding of a seat's report. */
interface Finding {
  file: string;
  line: number;
}

/** The findings of a seat report text: its last fenced JSON block (or the whole text) parsed; [] when not JSON. */
export function reportFindings(text: string): Finding[] {
  const blocks = [...text.matchAll(/```(?:json)?\s*\n([\s\S]*?)```/g)].map((m) => m[1]!);
  try {
    const report = JSON.parse(blocks.at(-1) ?? text) as { findings?: { file?: unknown; line?: unknown }[] };
    return (report.findings ?? []).map((f) => ({
      file: String(f.file ?? '').replace(/^\.\//, ''),
      line: Number(f.line),
    }));
  } catch {
    return [];
  }
}

/** The findings of every valid seat, from the final text of its last attempt's child session. */
async function validFindings(z: ZunoEnv, c: CouncilRecord): Promise<Finding[]> {
  const all: Finding[] = [];
  for (const seat of c.seats.filter((s) => s.validity === 'valid')) {
    const child = seat.childSessionIds.at(-1);
    if (child) all.push(...reportFindings((await showSession(z, child)).session.finalText ?? ''));
  }
  return all;
}

export const check: Checker = async ({ ws, attempt, z }) => {
  if (!attempt.councilId) return verdict(['the attempt printed no council id']);
  const c = await showCouncil(z, attempt.councilId);
  const findings = await validFindings(z, c);
  const named = findings.map((f) => `${f.file}:${f.line}`).join(', ') || 'none';
  return verdict([
    c.status === 'succeeded' ? null : `the council ended ${c.status}`,
    findings.some((f) => f.file === 'functions/gt.js' && f.line === 2)
      ? null
      : `no valid seat report names functions/gt.js:2 (named: ${named})`,
    /functions\/gt\.js/.test(c.synthesis ?? '') ? null : 'the synthesis does not name functions/gt.js',
    unchanged(ws),
  ]);
};
