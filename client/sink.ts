/**
 * Where the CLI's rendered output goes (stdout, stderr and the terminal's
 * status line). Its own file so the renderer and the live progress line it
 * drives both name it without importing each other.
 */

/** Where rendered output goes; injectable for tests. */
export interface Sink {
  out(text: string): void;
  err(text: string): void;
  /**
   * Only when stderr is a terminal: shows `text` (one line, no newline) as
   * the status line, redrawn in place; null clears it. `out` and `err`
   * clear it before they write. Absent: no terminal, plain lines only.
   */
  status?(text: string | null): void;
  /** Width of the terminal the status line is drawn on, in columns. */
  columns?(): number;
}
