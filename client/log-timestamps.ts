/**
 * Timestamps for the host worker service's log (`$ZUNO_HOME/worker.log`,
 * issue 25): the service's stderr goes to that file, and a line there is only
 * useful with the moment it was written. Foreground commands keep plain lines.
 */

/**
 * `text` with `stamp` put at the start of every line that begins in it; `atLineStart` says whether the text before
 * ended a line. Returns the stamped text and whether this text ends one. Pure.
 */
export function stampLines(text: string, stamp: string, atLineStart: boolean): { text: string; atLineStart: boolean } {
  if (text === '') return { text, atLineStart };
  const lines = text.split('\n');
  const out = lines.map((line, i) => {
    const starts = i === 0 ? atLineStart : true;
    // The piece after a final newline is empty: nothing starts there yet.
    if (i === lines.length - 1 && line === '') return line;
    return starts ? `${stamp} ${line}` : line;
  });
  return { text: out.join('\n'), atLineStart: text.endsWith('\n') };
}

/**
 * From now on, every line this process writes to stderr starts with the time
 * it was written, as an ISO 8601 UTC timestamp (`2026-12-03T21:20:04.512Z …`).
 * For `zuno worker run --service`, whose stderr is the home's `worker.log`.
 */
export function timestampStderr(): void {
  const write = process.stderr.write.bind(process.stderr) as (chunk: unknown, ...rest: unknown[]) => boolean;
  let atLineStart = true;
  process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
    const text = typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk);
    const stamped = stampLines(text, new Date().toISOString(), atLineStart);
    atLineStart = stamped.atLineStart;
    return write(stamped.text, ...rest);
  }) as typeof process.stderr.write;
}
