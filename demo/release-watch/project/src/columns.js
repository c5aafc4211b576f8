// padkit is already written against left-pad-lite 2's API, where leftPad takes
// an options object: leftPad(text, { width, fill }). 1.x took positional
// arguments, leftPad(text, width, fill). The dependency in package.json is
// bumped once 2.0.0 is published; test/deps.test.js keeps the two in step.
export const LEFT_PAD_LITE_MAJOR = 2;

/** The arguments of one left-pad-lite 2 call that right-aligns `text` in `width` columns. */
export function padCall(text, width, fill = ' ') {
  return [String(text), { width, fill }];
}

/** The widest cell of each column of `rows` (arrays of cells), for the padCall widths. */
export function columnWidths(rows) {
  const widths = [];
  for (const row of rows) row.forEach((cell, i) => (widths[i] = Math.max(widths[i] ?? 0, String(cell).length)));
  return widths;
}
