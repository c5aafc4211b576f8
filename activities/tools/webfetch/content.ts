/**
 * What `webfetch` makes of a response body, by its content type (issue 31
 * item 2; NW6 decided in docs/web.md): HTML as Markdown or plain text
 * (html.ts), JSON pretty-printed, other text as is, everything else binary
 * (never decoded). A body without a content type is text when it is valid
 * UTF-8 without NUL bytes, else binary.
 */
import type { WEBFETCH_FORMATS } from '../../../core/tools/webfetch.js';
import { decodeUtf8Strict } from '../common.js';
import { htmlToMarkdown, htmlToText } from './html.js';

/** How the body is returned (the call's `format`). */
export type WebfetchFormat = (typeof WEBFETCH_FORMATS)[number];

/** The parsed `content-type` header: the media type lower-cased, and its charset if named. */
export interface MediaType {
  /** e.g. `text/html`; `application/octet-stream` when the header is absent and the body is not text. */
  mime: string;
  charset?: string;
  /** The header as received (absent when the server sent none). */
  header?: string;
}

/** The kind of body, deciding how it is rendered. */
export type BodyKind = 'html' | 'json' | 'text' | 'binary';

/** application/* types that are text. */
const TEXT_APPLICATION = new Set([
  'application/javascript',
  'application/ecmascript',
  'application/xml',
  'application/yaml',
  'application/x-yaml',
  'application/toml',
  'application/x-www-form-urlencoded',
  'application/graphql',
  'application/sql',
  'application/x-sh',
  'application/x-ndjson',
]);

/** The media type of a response: its `content-type` header, or (none sent) sniffed from the bytes. */
export function mediaTypeOf(header: string | undefined, body: Buffer): MediaType {
  if (header === undefined || header.trim() === '') {
    const text = decodeUtf8Strict(body) !== null && !body.includes(0);
    return { mime: text ? 'text/plain' : 'application/octet-stream' };
  }
  const [type, ...params] = header.split(';');
  const charset = params.map((p) => p.trim().match(/^charset\s*=\s*"?([^";]+)"?$/i)?.[1]).find((c) => c !== undefined);
  return { mime: (type ?? '').trim().toLowerCase(), header, ...(charset ? { charset } : {}) };
}

/** How a body of media type `mime` is rendered. */
export function bodyKind(mime: string): BodyKind {
  if (mime === 'text/html' || mime === 'application/xhtml+xml') return 'html';
  if (mime === 'application/json' || mime.endsWith('+json')) return 'json';
  if (mime.startsWith('text/') || mime.endsWith('+xml') || TEXT_APPLICATION.has(mime)) return 'text';
  return 'binary';
}

/** `body` decoded with its charset (UTF-8 when none is named or the name is unknown); bad bytes become U+FFFD. */
export function decodeBody(body: Buffer, charset: string | undefined): string {
  try {
    return new TextDecoder(charset ?? 'utf-8').decode(body);
  } catch {
    return new TextDecoder('utf-8').decode(body);
  }
}

/**
 * A text body rendered for the model.
 * @param kind `html`, `json` or `text` (binary bodies are never rendered).
 * @param format the call's format: `raw` returns the decoded body as is; `markdown`/`text` convert HTML and
 *   pretty-print JSON (a JSON body that does not parse is returned as is).
 * @param base the final URL (relative links in Markdown are resolved against it).
 */
export function renderText(text: string, kind: Exclude<BodyKind, 'binary'>, format: WebfetchFormat, base: string) {
  if (format === 'raw' || kind === 'text') return text;
  if (kind === 'html') return format === 'markdown' ? htmlToMarkdown(text, base) : htmlToText(text);
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
