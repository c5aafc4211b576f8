/**
 * Unified diff of one file change (FT6 "diff for success"), with three lines
 * of context, `a/`/`b/` labels, `/dev/null` for a created or deleted file and
 * `\ No newline at end of file` markers. Pure; no dependency.
 *
 * For an update the diff is computed inside the replaced regions only (the
 * rest of the file is known to be unchanged), so a large file with small
 * hunks costs little; a region is diffed by LCS when it is small enough and
 * shown as removed-then-added otherwise.
 */
import type { Replacement } from './hunks.js';

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

interface Op {
  t: ' ' | '-' | '+';
  text: string;
}

function regionOps(a: string[], b: string[], out: Op[]): void {
  let pre = 0;
  while (pre < a.length && pre < b.length && a[pre] === b[pre]) pre++;
  let suf = 0;
  while (suf < a.length - pre && suf < b.length - pre && a[a.length - 1 - suf] === b[b.length - 1 - suf]) suf++;
  for (let i = 0; i < pre; i++) out.push({ t: ' ', text: a[i]! });
  const x = a.slice(pre, a.length - suf);
  const y = b.slice(pre, b.length - suf);
  if (x.length > 0 && y.length > 0 && (x.length + 1) * (y.length + 1) <= LCS_MAX_CELLS) {
    const w = y.length + 1;
    const t = new Uint32Array((x.length + 1) * w);
    for (let i = x.length - 1; i >= 0; i--) {
      for (let j = y.length - 1; j >= 0; j--) {
        t[i * w + j] = x[i] === y[j] ? t[(i + 1) * w + j + 1]! + 1 : Math.max(t[(i + 1) * w + j]!, t[i * w + j + 1]!);
      }
    }
    let i = 0;
    let j = 0;
    while (i < x.length && j < y.length) {
      if (x[i] === y[j]) {
        out.push({ t: ' ', text: x[i++]! });
        j++;
      } else if (t[(i + 1) * w + j]! >= t[i * w + j + 1]!) out.push({ t: '-', text: x[i++]! });
      else out.push({ t: '+', text: y[j++]! });
    }
    while (i < x.length) out.push({ t: '-', text: x[i++]! });
    while (j < y.length) out.push({ t: '+', text: y[j++]! });
  } else {
    for (const l of x) out.push({ t: '-', text: l });
    for (const l of y) out.push({ t: '+', text: l });
  }
  for (let i = a.length - suf; i < a.length; i++) out.push({ t: ' ', text: a[i]! });
}

function editScript(oldLines: string[], newLines: string[], reps?: Replacement[]): Op[] {
  const regions = reps ?? [{ start: 0, oldLen: oldLines.length, newLines, chunk: 0 }];
  const ops: Op[] = [];
  let i = 0;
  for (const r of regions) {
    for (; i < r.start; i++) ops.push({ t: ' ', text: oldLines[i]! });
    regionOps(oldLines.slice(r.start, r.start + r.oldLen), r.newLines, ops);
    i = r.start + r.oldLen;
  }
  for (; i < oldLines.length; i++) ops.push({ t: ' ', text: oldLines[i]! });
  return ops;
}

function range(start: number, count: number): string {
  const s = count === 0 ? start : start + 1;
  return count === 1 ? `${s}` : `${s},${count}`;
}

/**
 * Renders a unified diff.
 *
 * @param before the old file, or null when the file is created.
 * @param after the new file, or null when the file is deleted.
 * @param replacements for an update: the replaced regions of `before.lines`
 *   (sorted, disjoint); omitted: the whole files are compared.
 * @returns `--- a/<old>` / `+++ b/<new>` headers and `@@` hunks; headers only
 *   when the lines are equal (e.g. a pure rename).
 */
export function unifiedDiff(before: DiffSide | null, after: DiffSide | null, replacements?: Replacement[]): string {
  const oldLines = before?.lines ?? [];
  const newLines = after?.lines ?? [];
  const out = [before ? `--- a/${before.path}` : '--- /dev/null', after ? `+++ b/${after.path}` : '+++ /dev/null'];
  const ops = editScript(oldLines, newLines, before && after ? replacements : undefined);
  const oldBefore: number[] = [];
  const newBefore: number[] = [];
  let o = 0;
  let n = 0;
  for (const op of ops) {
    oldBefore.push(o);
    newBefore.push(n);
    if (op.t !== '+') o++;
    if (op.t !== '-') n++;
  }
  const oldNoEol = before !== null && !before.finalNewline && oldLines.length > 0;
  const newNoEol = after !== null && !after.finalNewline && newLines.length > 0;
  let i = 0;
  while (i < ops.length) {
    if (ops[i]!.t === ' ') {
      i++;
      continue;
    }
    const start = Math.max(0, i - DIFF_CONTEXT);
    let end = i;
    let j = i;
    while (j < ops.length) {
      if (ops[j]!.t !== ' ') {
        end = j++;
        continue;
      }
      let k = j;
      while (k < ops.length && ops[k]!.t === ' ') k++;
      if (k < ops.length && k - j <= 2 * DIFF_CONTEXT) j = k;
      else break;
    }
    const stop = Math.min(ops.length, end + 1 + DIFF_CONTEXT);
    let oc = 0;
    let nc = 0;
    for (let x = start; x < stop; x++) {
      if (ops[x]!.t !== '+') oc++;
      if (ops[x]!.t !== '-') nc++;
    }
    out.push(`@@ -${range(oldBefore[start]!, oc)} +${range(newBefore[start]!, nc)} @@`);
    for (let x = start; x < stop; x++) {
      const op = ops[x]!;
      out.push(`${op.t}${op.text}`);
      const lastOld = op.t !== '+' && oldBefore[x] === oldLines.length - 1;
      const lastNew = op.t !== '-' && newBefore[x] === newLines.length - 1;
      if ((op.t === '-' && lastOld && oldNoEol) || (op.t === '+' && lastNew && newNoEol)) {
        out.push('\\ No newline at end of file');
      } else if (op.t === ' ' && lastOld && lastNew && (oldNoEol || newNoEol)) {
        out.push('\\ No newline at end of file');
      }
    }
    i = stop;
  }
  return `${out.join('\n')}\n`;
}
