/** An epoch-ms time to the minute, for people: `2026-12-06 22:37 UTC`. Pure. */
export function utcMinute(ms: number): string {
  return `${new Date(ms).toISOString().slice(0, 16).replace('T', ' ')} UTC`;
}
