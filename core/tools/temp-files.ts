/**
 * Naming of the temp files the file tools publish through (FT3, FT4): new
 * content is written to `.<name>.<12 hex>.zuno-tmp` beside its target, then
 * renamed over it. Shared by the engine that creates and sweeps them
 * (activities/tools/apply-patch/publish.ts, temp-files.ts) and by the tool
 * declarations, whose `affectedPaths` list the pattern so an uncertain record
 * (GP9) names a temp file a killed worker left behind. Pure code.
 */

/** Suffix of every temp file name. */
export const TEMP_FILE_SUFFIX = '.zuno-tmp';

/** Number of lowercase hex digits of the random part of a temp file name. */
export const TEMP_FILE_HEX_DIGITS = 12;

/** Longest target name (UTF-8 bytes) kept in a temp file name; longer names become `file`. */
export const TEMP_FILE_STEM_MAX_BYTES = 100;

/**
 * Exactly the names {@link tempFileName} produces: `.`, a non-empty stem,
 * `.`, 12 lowercase hex digits, `.zuno-tmp`. Nothing else is ever swept.
 */
export const TEMP_FILE_NAME = /^\.[^/]+\.[0-9a-f]{12}\.zuno-tmp$/;

/** The stem a target name contributes: the name itself, or `file` when longer than {@link TEMP_FILE_STEM_MAX_BYTES}. */
export function tempFileStem(name: string): string {
  return new TextEncoder().encode(name).length <= TEMP_FILE_STEM_MAX_BYTES ? name : 'file';
}

/**
 * The temp file name (no directory) for a target called `name`.
 *
 * @param hex the random part, {@link TEMP_FILE_HEX_DIGITS} lowercase hex digits.
 */
export function tempFileName(name: string, hex: string): string {
  return `.${tempFileStem(name)}.${hex}${TEMP_FILE_SUFFIX}`;
}

/**
 * The glob pattern of the temp files of `path` (as written, `/`-separated):
 * `src/a.ts` → `src/.a.ts.*.zuno-tmp`. When `path`'s final segment is a
 * symlink the temp file sits beside the link's target instead (not knowable
 * without I/O).
 */
export function tempFilePattern(path: string): string {
  const cut = path.lastIndexOf('/');
  const dir = cut >= 0 ? path.slice(0, cut + 1) : '';
  return `${dir}.${tempFileStem(path.slice(cut + 1))}.*${TEMP_FILE_SUFFIX}`;
}
