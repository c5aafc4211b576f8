/**
 * HTML → Markdown and HTML → plain text for `webfetch` (issue 31 item 2; NW6
 * decided in docs/web.md), both with `turndown` (a kept library: its own DOM
 * parser, no hand-written HTML parsing here). Scripts, styles and other
 * non-content elements are dropped; links and images are made absolute
 * against the page's final URL so the model can follow them.
 */
import TurndownService from 'turndown';

/** Elements whose content is never shown. */
const DROPPED = ['script', 'style', 'noscript', 'template', 'iframe', 'object', 'embed', 'meta', 'link'] as const;
const DROPPED_NAMES = new Set<string>(DROPPED.map((t) => t.toUpperCase()));

/** Elements that start and end a block of plain text (paragraph breaks around them). */
const BLOCKS = new Set([
  'ADDRESS',
  'ARTICLE',
  'ASIDE',
  'BLOCKQUOTE',
  'BODY',
  'DD',
  'DETAILS',
  'DIV',
  'DL',
  'DT',
  'FIELDSET',
  'FIGCAPTION',
  'FIGURE',
  'FOOTER',
  'FORM',
  'H1',
  'H2',
  'H3',
  'H4',
  'H5',
  'H6',
  'HEADER',
  'HR',
  'MAIN',
  'NAV',
  'OL',
  'P',
  'PRE',
  'SECTION',
  'SUMMARY',
  'TABLE',
  'TITLE',
  'TR',
  'UL',
]);

/** The part of a DOM element the rules read (the project has no DOM type library). */
interface DomElement {
  nodeName: string;
  getAttribute(name: string): string | null;
}

/** `node` (turndown's parsed element) as a {@link DomElement}. */
function el(node: unknown): DomElement {
  return node as DomElement;
}

/** `href` resolved against `base`; the attribute as written when it does not resolve. */
function absolute(href: string, base: string): string {
  try {
    return new URL(href, base).href;
  } catch {
    return href;
  }
}

/**
 * `html` as Markdown (ATX headings, fenced code, `-` bullets).
 * @param base the page's final URL: relative links and image sources are resolved against it.
 */
export function htmlToMarkdown(html: string, base: string): string {
  const t = new TurndownService({ headingStyle: 'atx', codeBlockStyle: 'fenced', bulletListMarker: '-' });
  t.remove([...DROPPED]);
  t.addRule('absoluteLink', {
    filter: (node) => el(node).nodeName === 'A' && el(node).getAttribute('href') !== null,
    replacement: (content, node) => {
      const href = absolute(el(node).getAttribute('href') ?? '', base);
      return content.trim() === '' ? '' : `[${content}](${href})`;
    },
  });
  t.addRule('absoluteImage', {
    filter: 'img',
    replacement: (_content, node) => {
      const src = el(node).getAttribute('src');
      const alt = el(node).getAttribute('alt') ?? '';
      return src ? `![${alt}](${absolute(src, base)})` : '';
    },
  });
  return tidy(t.turndown(html));
}

/**
 * `html` as plain text: no markup, no Markdown escapes, a blank line between blocks, a line break for `<br>`,
 * list items as `- item`, table cells separated by tabs, whitespace collapsed (turndown's own collapsing of inline whitespace, then runs of blank lines).
 */
export function htmlToText(html: string): string {
  const t = new TurndownService();
  t.remove([...DROPPED]);
  t.escape = (s: string) => s;
  t.addRule('plain', {
    filter: (node) => !DROPPED_NAMES.has(el(node).nodeName),
    replacement: (content, node) => {
      if (el(node).nodeName === 'BR') return '\n';
      if (el(node).nodeName === 'IMG') return el(node).getAttribute('alt') ?? '';
      if (el(node).nodeName === 'TD' || el(node).nodeName === 'TH') return `${content}\t`;
      if (el(node).nodeName === 'LI') return `\n- ${content.trim()}\n`;
      return BLOCKS.has(el(node).nodeName) ? `\n\n${content}\n\n` : content;
    },
  });
  return tidy(t.turndown(html));
}

/** Trailing spaces cut, three or more line breaks collapsed to a blank line, the ends trimmed. */
function tidy(text: string): string {
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
