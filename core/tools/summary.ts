/**
 * Helpers for tool-call summaries shown in the Temporal UI (TD1 `summarize`).
 * Deterministic, no Node imports: bundled into workflows.
 */

/** Maximum length of a summary, in UTF-16 code units. */
export const SUMMARY_MAX = 120;

/**
 * Makes one summary line: control characters (newlines in a path or a
 * pattern) are shown as escapes and the result is cut to `max` code units
 * with a trailing `…`.
 */
export function summaryLine(text: string, max: number = SUMMARY_MAX): string {
  // eslint-disable-next-line no-control-regex
  const flat = text.replace(/[\u0000-\u001f\u007f]/g, (c) => JSON.stringify(c).slice(1, -1));
  if (flat.length <= max) return flat;
  let cut = max - 1;
  const code = flat.charCodeAt(cut - 1);
  if (code >= 0xd800 && code <= 0xdbff) cut--; // don't split a surrogate pair
  return `${flat.slice(0, cut)}…`;
}
