/**
 * Text that Zuno hands to the Temporal UI as workflow metadata (static
 * summary and details, current details), which the UI renders as Markdown:
 * a prompt or a model-chosen command must read literally there — no
 * emphasis, no math, no links, no HTML (an `<img>` in a prompt would make
 * the operator's browser fetch a URL). Pure.
 */
// Emphasis, code, links/images, math and strikethrough; the lines Zuno writes are single lines that
// start with a plain word, so block syntax (headings, lists, tables) cannot arise.
// An underscore inside a word (`tool_call`, `bg_0_0_0`) is never emphasis, so it stays as it is.
const MARKDOWN_SPECIAL = /[\\`*[\]$~]|(?<![A-Za-z0-9])_|_(?![A-Za-z0-9])/g;

/**
 * `text` as literal Markdown: HTML-significant characters become entities
 * and Markdown punctuation is backslash-escaped, so the UI shows exactly
 * `text`. Plain words pass unchanged.
 */
export function markdownLiteral(text: string): string {
  return text
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(MARKDOWN_SPECIAL, (c) => `\\${c}`);
}
