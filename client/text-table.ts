/**
 * A plain-text table for people: columns padded to their widest cell, two
 * spaces apart, the last column unpadded; one line per row, ending in `\n`.
 */
export function textTable(head: string[], rows: string[][]): string {
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((c) => c[i]!.length)));
  const line = (c: string[]) =>
    c
      .map((v, i) => (i === c.length - 1 ? v : v.padEnd(widths[i]!)))
      .join('  ')
      .trimEnd();
  return `${[head, ...rows].map(line).join('\n')}\n`;
}

/** `s` cut to at most `n` characters (code points), a cut one ending in `…`. */
export function cut(s: string, n: number): string {
  const chars = [...s];
  return chars.length <= n ? s : `${chars.slice(0, n - 1).join('')}…`;
}
