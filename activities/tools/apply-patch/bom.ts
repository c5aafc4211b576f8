/**
 * A BOM copied into a patch (FT3 "keeps BOM"). The BOM of a file is a
 * file-level fact (text.ts): it is not part of the first line, and it is
 * written back exactly once. A model that read a BOM file may copy U+FEFF
 * into the hunk that edits the first line; read literally, that line would
 * match only after trimming ("ignoring indentation") and the `+` line would
 * put a second BOM into the file.
 *
 * Rule: in a file that starts with a BOM, a hunk without `@@` header whose
 * first old line begins with U+FEFF is anchored at the start of the file: one
 * U+FEFF is dropped from that old line and from its first new line (if that
 * begins with one too), and the hunk must match at line 1. An `@@` header
 * that begins with U+FEFF loses it (the header names the first line). Any
 * other U+FEFF in a patch is content.
 */
import type { PatchChunk } from './parse.js';

const BOM = '\uFEFF';

function unBom(s: string): string {
  return s.startsWith(BOM) ? s.slice(1) : s;
}

/**
 * The hunks of an Update File section as they apply to a file that starts
 * with a BOM (see the rule above); hunks the rule does not cover are
 * returned as they are. Pure.
 */
export function bomAnchoredChunks(chunks: PatchChunk[]): PatchChunk[] {
  return chunks.map((c) => {
    if (c.header !== undefined) return c.header.startsWith(BOM) ? { ...c, header: unBom(c.header) } : c;
    if (!c.oldLines[0]?.startsWith(BOM)) return c;
    const oldLines = [unBom(c.oldLines[0]), ...c.oldLines.slice(1)];
    const newLines = c.newLines.length > 0 ? [unBom(c.newLines[0]!), ...c.newLines.slice(1)] : [];
    return { ...c, oldLines, newLines, startOfFile: true };
  });
}
