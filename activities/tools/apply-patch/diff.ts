/**
 * Unified diff of one file change (FT6 "diff for success"), with three lines
 * of context, `a/`/`b/` labels, `/dev/null` for a created or deleted file and
 * `\ No newline at end of file` markers. Pure; no dependency.
 *
 * For an update the diff is computed inside the replaced regions only (the
 * rest of the file is known to be unchanged), so a large file with small
 * hunks costs little; a region is diffed by LCS when it is small enough and
 * shown as removed-then-added otherwise. Only changed lines are listed and
 * context is read from the old lines, so a big file costs its changes, and
 * the remaining loops are paced (./pace.ts) so the event loop stays free.
 */
import type { Replacement } from './hunks.js';
import { PACE_EVERY, PACE_MASK, Pacer } from './pace.js';

/** Lines of context around each change. */
export const DIFF_CONTEXT = 3;
/** Largest region (old × new lines) diffed by LCS. */
const LCS_MAX_CELLS = 4_000_000;

/** One side of a diff: its label (workspace-relative path), lines and final-newline state. */
export interface DiffSide {
  path: string;
  lines: string[];
  finalNewline: boolean;
}

/**
 * One removed or added line of the edit script. Unchanged lines are not
 * listed: between two changes every line is context, so a big file with a
 * small change costs only its changes. `o` / `n`: old / new lines before it
 * (for `-`, the 0-based old index of the line; for `+`, its new index).
 */
interface Change {
  t: '-' | '+';
  text: string;
  o: number;
  n: number;
}

/**
 * Appends the changes that turn `a[aFrom, aTo)` into `b[bFrom, bTo)`: common
 * prefix and suffix trimmed, the rest by LCS when small enough, else removed
 * then added. `nShift` maps an index of `b` to its line in the new file.
 */
async function regionChanges(
  a: string[],
  [aFrom, aTo]: [number, number],
  b: string[],
  [bFrom, bTo]: [number, number],
  nShift: number,
  out: Change[],
  pace: Pacer,
): Promise<void> {
  let steps = 0;
  const step = () => (++steps & PACE_MASK) === 0;
  while (aFrom < aTo && bFrom < bTo && a[aFrom] === b[bFrom]) {
    aFrom++;
    bFrom++;
    if (step()) await pace.tick();
  }
  while (aTo > aFrom && bTo > bFrom && a[aTo - 1] === b[bTo - 1]) {
    aTo--;
    bTo--;
    if (step()) await pace.tick();
  }
  const xl = aTo - aFrom;
  const yl = bTo - bFrom;
  const del = (i: number, j: number) => out.push({ t: '-', text: a[i]!, o: i, n: j + nShift });
  const add = (i: number, j: number) => out.push({ t: '+', text: b[j]!, o: i, n: j + nShift });
  if (xl > 0 && yl > 0 && (xl + 1) * (yl + 1) <= LCS_MAX_CELLS) {
    const w = yl + 1;
    const t = new Uint32Array((xl + 1) * w);
    let cells = 0;
    for (let i = xl - 1; i >= 0; i--) {
      cells += yl;
      if (cells >= PACE_EVERY * 16) {
        cells = 0;
        await pace.tick();
      }
      const xi = a[aFrom + i];
      for (let j = yl - 1; j >= 0; j--) {
        t[i * w + j] =
          xi === b[bFrom + j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < xl && j < yl) {
      if (a[aFrom + i] === b[bFrom + j]) {
        i++;
        j++;
      } else if (t[(i + 1) * w + j]! >= t[i * w + j + 1]!) del(aFrom + i++, bFrom + j);
      else add(aFrom + i, bFrom + j++);
    }
    while (i < xl) del(aFrom + i++, bFrom + j);
    while (j < yl) add(aFrom + i, bFrom + j++);
  } else {
    for (let i = aFrom; i < aTo; i++) {
      if (step()) await pace.tick();
      del(i, bFrom);
    }
    for (let j = bFrom; j < bTo; j++) {
      if (step()) await pace.tick();
      add(aTo, j);
    }
  }
}

async function editScript(
  oldLines: string[],
  newLines: string[],
  reps: Replacement[] | undefined,
  pace: Pacer,
): Promise<Change[]> {
  const out: Change[] = [];
  if (!reps) {
    await regionChanges(oldLines, [0, oldLines.length], newLines, [0, newLines.length], 0, out, pace);
    return out;
  }
  let shift = 0; // new index − old index after the regions so far
  for (const r of reps) {
    const span: [number, number] = [r.start, r.start + r.oldLen];
    await regionChanges(oldLines, span, r.newLines, [0, r.newLines.length], r.start + shift, out, pace);
    shift += r.newLines.length - r.oldLen;
  }
  return out;
}

function range(start: number, count: number): string {
  const s = count === 0 ? start : start + 1;
  return count === 1 ? `${s}` : `${s},${count}`;
}

/** Old lines a change consumes up to and including itself. */
const oldEnd = (c: Change) => c.o + (c.t === '-' ? 1 : 0);

/**
 * Renders a unified diff. Costs the size of the changes (plus a scan of the
 * compared regions), not of the file; paced by `pace` (./pace.ts).
 *
 * @param before the old file, or null when the file is created.
 * @param after the new file, or null when the file is deleted.
 * @param replacements for an update: the replaced regions of `before.lines`
 *   (sorted, disjoint); omitted: the whole files are compared.
 * @returns `--- a/<old>` / `+++ b/<new>` headers and `@@` hunks; headers only
 *   when the lines are equal (e.g. a pure rename).
 */
export async function unifiedDiff(
  before: DiffSide | null,
  after: DiffSide | null,
  replacements?: Replacement[],
  pace: Pacer = new Pacer(),
): Promise<string> {
  const oldLines = before?.lines ?? [];
  const newLines = after?.lines ?? [];
  const out = [before ? `--- a/${before.path}` : '--- /dev/null', after ? `+++ b/${after.path}` : '+++ /dev/null'];
  const changes = await editScript(oldLines, newLines, before && after ? replacements : undefined, pace);
  const oldNoEol = before !== null && !before.finalNewline && oldLines.length > 0;
  const newNoEol = after !== null && !after.finalNewline && newLines.length > 0;
  const NO_EOL = '\\ No newline at end of file';
  let c = 0;
  while (c < changes.length) {
    let e = c;
    while (e + 1 < changes.length && changes[e + 1]!.o - oldEnd(changes[e]!) <= 2 * DIFF_CONTEXT) e++;
    const first = changes[c]!;
    const lead = Math.min(DIFF_CONTEXT, first.o);
    const end = oldEnd(changes[e]!);
    const stopO = end + Math.min(DIFF_CONTEXT, oldLines.length - end);
    let o = first.o - lead;
    let n = first.n - lead;
    const oldCount = stopO - o;
    const newCount = oldCount - changes.slice(c, e + 1).reduce((d, x) => d + (x.t === '-' ? 1 : -1), 0);
    out.push(`@@ -${range(o, oldCount)} +${range(n, newCount)} @@`);
    const context = (upTo: number) => {
      for (; o < upTo; o++, n++) {
        out.push(` ${oldLines[o]!}`);
        if (o === oldLines.length - 1 && n === newLines.length - 1 && (oldNoEol || newNoEol)) out.push(NO_EOL);
      }
    };
    for (let x = c; x <= e; x++) {
      if ((x & PACE_MASK) === PACE_MASK) await pace.tick();
      const ch = changes[x]!;
      context(ch.o);
      out.push(`${ch.t}${ch.text}`);
      if (ch.t === '-') {
        if (o === oldLines.length - 1 && oldNoEol) out.push(NO_EOL);
        o++;
      } else {
        if (n === newLines.length - 1 && newNoEol) out.push(NO_EOL);
        n++;
      }
    }
    context(stopO);
    c = e + 1;
  }
  return `${out.join('\n')}\n`;
}
