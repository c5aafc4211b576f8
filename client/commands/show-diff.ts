/**
 * The change a tool call made, as `zuno session show` prints it: the unified
 * diffs its stored result records (apply_patch keeps one per file in
 * `changes[].diff`, write one in `diff`), rendered as they were recorded, and
 * the colours of diff and patch lines on a terminal. Nothing is recomputed
 * from files. Pure.
 */
import { z } from 'zod';
import { COLOURS as ANSI, inertText } from '../../core/terminal-text.js';
import { blockLines, LIMITS, type ShowView } from './show-text.js';

const diffSchema = z.object({
  changes: z
    .array(z.object({ diff: z.string() }))
    .optional()
    .catch(undefined),
  diff: z.string().nullable().optional().catch(undefined),
  diffOmitted: z.string().optional().catch(undefined),
});

/** What a stored result says about the change's diff. */
export interface RecordedChange {
  /** Unified diffs in the order recorded (empty ones, e.g. an unchanged file, left out). */
  diffs: string[];
  /** Why a diff was not kept (`too_large`, `not_text`), when the result says so. */
  omitted?: string;
}

/**
 * The diffs a tool call's stored result records.
 * @param result the row's `result` JSON; other shapes yield no diffs.
 */
export function recordedChange(result: Record<string, unknown> | null | undefined): RecordedChange {
  const r = diffSchema.safeParse(result ?? {}).data;
  const diffs = [...(r?.changes ?? []).map((c) => c.diff), ...(r?.diff ? [r.diff] : [])].filter((d) => d !== '');
  return r?.diffOmitted ? { diffs, omitted: r.diffOmitted } : { diffs };
}

const OMITTED: Record<string, string> = {
  too_large: 'the diff was too large to keep',
  not_text: 'the file is not text, so there is no diff',
};

/**
 * One line of a unified diff or an apply_patch patch with terminal colours:
 * removed red, added green, hunk headers cyan, file headers bold; the
 * line's own control characters escaped (core/terminal-text.ts `inertText`).
 */
export function paintDiffLine(raw: string): string {
  const line = inertText(raw);
  const paint = (c: string) => `${c}${line}${ANSI.reset}`;
  if (line.startsWith('+++ ') || line.startsWith('--- ') || line.startsWith('***')) return paint(ANSI.bold);
  if (line.startsWith('@@')) return paint(ANSI.cyan);
  if (line.startsWith('+')) return paint(ANSI.green);
  if (line.startsWith('-')) return paint(ANSI.red);
  if (line.startsWith('\\')) return paint(ANSI.dim);
  return line;
}

/**
 * Lines showing a call's recorded change, indented by `indent`: the diffs
 * (cut to {@link LIMITS.diffLines} lines per call unless `view.full`,
 * coloured when `view.color`), or why no diff was kept. Empty when the
 * result records no change.
 */
export function changeLines(change: RecordedChange, view: ShowView, indent: string): string[] {
  const lines =
    change.diffs.length === 0
      ? []
      : blockLines(change.diffs.map((d) => (d.endsWith('\n') ? d : `${d}\n`)).join(''), view, {
          lines: LIMITS.diffLines,
          chars: LIMITS.diffChars,
          prefix: indent,
          noteIndent: indent,
          ...(view.color ? { paint: paintDiffLine } : {}),
        });
  if (change.omitted) lines.push(`${indent}(${OMITTED[change.omitted] ?? `no diff: ${change.omitted}`})`);
  return lines;
}
