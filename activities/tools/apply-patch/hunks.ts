/**
 * Applying the hunks of one Update File section to a file's logical lines
 * (FT3). Pure: no I/O.
 *
 * Rules (Codex's `compute_replacements`, made stricter where the seed asks for
 * "fresh and unique context"):
 * - Hunks apply in order; each is searched after the end of the previous one.
 * - `@@ header`: the header line is searched first (same matching levels) and
 *   the hunk's lines after its first occurrence. Without a header, lines that
 *   match at two or more places are ambiguous (`ContextMismatch`, reason
 *   `ambiguous`); with a header, they are ambiguous only if matches follow two
 *   different occurrences of the header.
 * - `*** End of File`: the lines must end the file; a hunk anchored by a
 *   copied BOM (bom.ts) must start it.
 * - A hunk with no old lines (only `+`) inserts after its header, or, without
 *   a header, at the end of the file (Codex appends there too).
 * - If the old lines end with an empty line that is not in the file (the
 *   final newline written as a blank context line), the match is retried
 *   without it (Codex).
 * - Context lines keep the file's own text (whitespace, stray `\r`), not the
 *   patch's, so fuzzy matching never rewrites lines the hunk did not change.
 * - Line endings are matched apart from the lines and carried per line
 *   ({@link pairOrigins}; the rule is in text.ts, FT3 notes).
 */
import type { PatchChunk } from './parse.js';
import { LineIndex, seekAtStart, seekLines, type Fuzz } from './match.js';
import { PACE_MASK, Pacer } from './pace.js';
import { resolveEndings, type Eol } from './text.js';

/** One region to replace: `oldLen` lines at `start` become `newLines`. */
export interface Replacement {
  start: number;
  oldLen: number;
  newLines: string[];
  /**
   * For each entry of `newLines`: the offset (from `start`) of the old line
   * whose line ending it keeps — the same context line, or the removed line it
   * replaces — or -1 for an added line (see text.ts, FT3 notes).
   */
  origins: number[];
  /** 0-based index of the hunk that produced it. */
  chunk: number;
}

/** Why a hunk did not apply. `index` is 1-based, as shown to the model. */
export interface HunkMismatch {
  index: number;
  header?: string;
  /** 1-based line of the patch text where the hunk starts. */
  patchLine: number;
  reason: 'context_not_found' | 'header_not_found' | 'ambiguous' | 'overlap';
  /** For `ambiguous`: 1-based file lines where the hunk's lines match (at most 5). */
  candidates?: number[];
}

/** Result of applying all hunks of a section; `endings` (one per new line) when the old endings were given. */
export type HunkResult =
  | { ok: true; lines: string[]; endings?: Eol[]; replacements: Replacement[]; fuzz: Fuzz }
  | { ok: false; mismatch: HunkMismatch };

type HunkFailed = Extract<HunkResult, { ok: false }>;

function mismatch(chunk: PatchChunk, k: number, reason: HunkMismatch['reason'], candidates?: number[]): HunkFailed {
  const m: HunkMismatch = { index: k + 1, patchLine: chunk.line, reason };
  if (chunk.header !== undefined) m.header = chunk.header;
  if (candidates) m.candidates = candidates.slice(0, 5).map((p) => p + 1);
  return { ok: false, mismatch: m };
}

/** Number of distinct header occurrences (by scope) that precede the matches. */
function scopesHit(headers: number[], matches: number[]): number {
  const scopes = new Set<number>();
  for (const m of matches) {
    let s = -1;
    for (const h of headers) if (h < m) s = h;
    scopes.add(s);
  }
  return scopes.size;
}

/**
 * Pairs the new lines of a matched hunk with old lines (see
 * {@link Replacement.origins}): a context line with itself; within each run
 * of changed lines between two context lines, the k-th added line with the
 * k-th removed line; the rest of the added lines with nothing (-1).
 *
 * @param contextOf the hunk's `contextOf` (entries outside `[0, oldLen)` are added lines).
 */
export function pairOrigins(contextOf: number[], oldLen: number): number[] {
  const origins = contextOf.map(() => -1);
  let prevOld = -1;
  let runStart = 0;
  for (let j = 0; j <= contextOf.length; j++) {
    const c = j < contextOf.length ? contextOf[j]! : oldLen;
    if (j < contextOf.length && (c < 0 || c >= oldLen)) continue;
    for (let k = 0; runStart + k < j && prevOld + 1 + k < c; k++) origins[runStart + k] = prevOld + 1 + k;
    if (j < contextOf.length) origins[j] = c;
    prevOld = c;
    runStart = j + 1;
  }
  return origins;
}

/**
 * Applies `chunks` to `lines`.
 *
 * @param endings the line ending of each of `lines` (text.ts `TextFile.endings`);
 *   when given, the result carries the new lines' endings (FT3 notes in text.ts).
 * @param eol the file's style, for added lines with no neighbour (default `\n`).
 * @param pace paces the work on a big file (./pace.ts).
 * @returns the new lines (and endings), the replacements (sorted by position,
 *   for the diff) and the loosest matching level used; or the first hunk that
 *   did not apply, with the reason.
 */
export async function applyChunks(
  lines: string[],
  chunks: PatchChunk[],
  endings?: Eol[],
  eol: Eol = '\n',
  pace: Pacer = new Pacer(),
): Promise<HunkResult> {
  const located = await locateChunks(lines, chunks, pace);
  if ('mismatch' in located) return located;
  const sorted = located.reps.map((r, i) => ({ r, i })).sort((a, b) => a.r.start - b.r.start || a.i - b.i);
  const overlap = sorted.find(({ r }, j) => j > 0 && r.start < sorted[j - 1]!.r.start + sorted[j - 1]!.r.oldLen);
  if (overlap) return mismatch(chunks[overlap.r.chunk]!, overlap.r.chunk, 'overlap');
  const replacements = sorted.map((s) => s.r);
  const { out, carried } = await splice(lines, replacements, endings, pace);
  const fuzz = located.fuzz;
  if (!endings) return { ok: true, lines: out, replacements, fuzz };
  return { ok: true, lines: out, endings: await resolveEndings(carried, eol, pace), replacements, fuzz };
}

/** Where each hunk applies, in patch order (each searched from where the one before ended), or the first that does not. */
async function locateChunks(
  lines: string[],
  chunks: PatchChunk[],
  pace: Pacer,
): Promise<{ reps: Replacement[]; fuzz: Fuzz } | HunkFailed> {
  const index = new LineIndex(lines, pace);
  const reps: Replacement[] = [];
  let cursor = 0;
  let fuzz: Fuzz = 0;
  for (let k = 0; k < chunks.length; k++) {
    const chunk = chunks[k]!;
    let from = cursor;
    let headers: number[] | undefined;
    if (chunk.header !== undefined) {
      const h = await seekLines(index, [chunk.header], cursor);
      if (!h) return mismatch(chunk, k, 'header_not_found');
      headers = h.positions;
      from = h.positions[0]! + 1;
      fuzz = Math.max(fuzz, h.fuzz) as Fuzz;
    }
    if (chunk.oldLines.length === 0) {
      const at = headers ? from : lines.length;
      reps.push({ start: at, oldLen: 0, newLines: chunk.newLines, origins: chunk.newLines.map(() => -1), chunk: k });
      if (headers) cursor = at;
      continue;
    }
    const hit = await locateChunk(index, lines, chunk, k, from, headers);
    if ('mismatch' in hit) return hit;
    fuzz = Math.max(fuzz, hit.fuzz) as Fuzz;
    reps.push(hit.rep);
    cursor = hit.rep.start + hit.rep.oldLen;
  }
  return { reps, fuzz };
}

/** Where one hunk with old lines applies (searched from `from`), retried without a trailing empty line. */
async function locateChunk(
  index: LineIndex,
  lines: string[],
  chunk: PatchChunk,
  k: number,
  from: number,
  headers: number[] | undefined,
): Promise<{ rep: Replacement; fuzz: Fuzz } | HunkFailed> {
  let pattern = chunk.oldLines;
  let repl = chunk.newLines;
  let contextOf = chunk.contextOf;
  const seek = (p: string[]) => (chunk.startOfFile ? seekAtStart : seekLines)(index, p, from, chunk.endOfFile);
  let found = await seek(pattern);
  if (!found && pattern[pattern.length - 1] === '') {
    pattern = pattern.slice(0, -1);
    if (repl[repl.length - 1] === '') {
      repl = repl.slice(0, -1);
      contextOf = contextOf.slice(0, -1);
    }
    found = await seek(pattern);
  }
  if (!found) return mismatch(chunk, k, 'context_not_found');
  const ambiguous = headers ? scopesHit(headers, found.positions) > 1 : found.positions.length > 1;
  if (ambiguous) return mismatch(chunk, k, 'ambiguous', found.positions);
  const at = found.positions[0]!;
  const newLines = repl.map((text, j) => {
    const i = contextOf[j]!;
    return i >= 0 && i < pattern.length ? lines[at + i]! : text;
  });
  const rep = {
    start: at,
    oldLen: pattern.length,
    newLines,
    origins: pairOrigins(contextOf, pattern.length),
    chunk: k,
  };
  return { rep, fuzz: found.fuzz };
}

/** `lines` with the sorted, non-overlapping replacements made, and the line ending each output line carries over. */
async function splice(
  lines: string[],
  sorted: Replacement[],
  endings: Eol[] | undefined,
  pace: Pacer,
): Promise<{ out: string[]; carried: Array<Eol | undefined> }> {
  const out: string[] = [];
  const carried: Array<Eol | undefined> = [];
  let pos = 0;
  const keep = async (to: number) => {
    for (let i = pos; i < to; i++) {
      if ((i & PACE_MASK) === PACE_MASK) await pace.tick();
      out.push(lines[i]!);
      carried.push(endings?.[i]);
    }
  };
  for (const r of sorted) {
    await keep(r.start);
    for (const l of r.newLines) out.push(l);
    for (const o of r.origins) carried.push(o >= 0 ? endings?.[r.start + o] : undefined);
    pos = r.start + r.oldLen;
  }
  await keep(lines.length);
  return { out, carried };
}

/** The hunks with old and new swapped (the patch undone). */
function reverseChunks(chunks: PatchChunk[]): PatchChunk[] {
  return chunks.map((c) => {
    const contextOf = c.oldLines.map(() => -1);
    c.contextOf.forEach((i, j) => {
      if (i >= 0) contextOf[i] = j;
    });
    const appendedAtEnd = c.oldLines.length === 0 && c.header === undefined;
    const r: PatchChunk = {
      oldLines: c.newLines,
      newLines: c.oldLines,
      contextOf,
      endOfFile: c.endOfFile || appendedAtEnd,
      ...(c.startOfFile ? { startOfFile: true } : {}),
      line: c.line,
    };
    if (c.header !== undefined) r.header = c.header;
    return r;
  });
}

/**
 * True when the hunks look already applied to `lines`: undoing them applies
 * cleanly and applying them to the undone text gives `lines` back exactly.
 * Used only after a forward match failed, to tell `IdenticalReplay` from
 * `ContextMismatch`. Paced by `pace` (./pace.ts).
 */
export async function alreadyApplied(
  lines: string[],
  chunks: PatchChunk[],
  pace: Pacer = new Pacer(),
): Promise<boolean> {
  // a hunk with no new lines (a bare deletion) leaves no evidence of having been applied
  if (chunks.length === 0 || chunks.some((c) => c.newLines.length === 0)) return false;
  const undone = await applyChunks(lines, reverseChunks(chunks), undefined, '\n', pace);
  if (!undone.ok) return false;
  const redone = await applyChunks(undone.lines, chunks, undefined, '\n', pace);
  return redone.ok && redone.lines.length === lines.length && redone.lines.every((l, i) => l === lines[i]);
}
