/**
 * Command output shown on one line of someone's terminal or the Temporal UI:
 * what a program wrote for its own terminal (colours, cursor moves, window
 * titles, progress bars redrawn with carriage returns) reduced to the text a
 * reader would have seen. Deterministic: pure string code only.
 */

// CSI (ESC [ … final byte, or the 8-bit CSI), OSC (ESC ] … BEL or ST), the other two-byte ESC sequences.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ESCAPES = /\x1b\[[0-?]*[ -/]*[@-~]|\x9b[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\^_]/g;
// C0/C1 controls and DEL; bidi overrides and zero-width characters, which would rearrange a terminal line.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROLS = /[\x00-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]/g;

/**
 * One output line as plain text: escape sequences removed; of a line
 * rewritten with carriage returns (a progress bar) the last non-empty
 * rewrite kept; every other control character a space; white space
 * collapsed and trimmed. Idempotent. Pure.
 */
export function plainTerminalLine(text: string): string {
  const rewrites = text
    .replace(ESCAPES, '')
    .split('\r')
    .filter((s) => s.trim() !== '');
  return (rewrites.at(-1) ?? '').replace(CONTROLS, ' ').replace(/\s+/g, ' ').trim();
}
