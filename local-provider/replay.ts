/**
 * Recorded-stream replay of the local provider (issue 4 item 7): a reply's
 * `chunks` — inline objects, a `.chunks.txt` file (one JSON event per line,
 * as in `../shared/peer-cases/provider-streams/`, see its SOURCE.md) or a
 * `.json` body — loaded once at server start and served byte-for-byte.
 */
import { readFile } from 'node:fs/promises';
import { isAbsolute, resolve } from 'node:path';
import { scriptInvalid, type Script, type ScriptIssue } from './script.js';

/** One recorded event: the data payload exactly as recorded, and its `type` field when it has one. */
export interface RecordedEvent {
  /** The line (or the serialized inline object), unchanged; sent as the `data:` payload. */
  data: string;
  /** The event's `type` (Responses / Anthropic), sent as the `event:` line on those surfaces. */
  type?: string;
}

/** What a replay reply serves. */
export type Replay =
  | { kind: 'stream'; events: RecordedEvent[]; file?: string }
  | { kind: 'json'; body: string; status: number; file: string };

/** Event types that open a new stream in a file holding several back to back. */
const STREAM_STARTS = new Set(['response.created', 'message_start']);

function typeOf(value: unknown): string | undefined {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return undefined;
  const t = (value as { type?: unknown }).type;
  return typeof t === 'string' && t !== '' ? t : undefined;
}

/**
 * Split the events of a file into streams, each starting at a
 * `response.created` / `message_start` event (events before the first such
 * start belong to the first stream). A file with no such event is one stream.
 */
export function splitStreams(events: readonly RecordedEvent[]): RecordedEvent[][] {
  const out: RecordedEvent[][] = [];
  for (const ev of events) {
    const starts = ev.type !== undefined && STREAM_STARTS.has(ev.type);
    if (out.length === 0 || (starts && out.at(-1)!.length > 0)) out.push([]);
    out.at(-1)!.push(ev);
  }
  return out;
}

/**
 * Parse the text of a `.chunks.txt` file: split on `\n`, skip blank lines,
 * every other line must be JSON; the line itself is kept as the payload.
 * @returns the events, or the 1-based number of the first line that is not JSON
 */
export function parseChunksText(text: string): { events: RecordedEvent[] } | { badLine: number } {
  const events: RecordedEvent[] = [];
  const lines = text.split('\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] as string;
    if (line.trim() === '') continue;
    let value: unknown;
    try {
      value = JSON.parse(line) as unknown;
    } catch {
      return { badLine: i + 1 };
    }
    const ev: RecordedEvent = { data: line };
    const t = typeOf(value);
    if (t !== undefined) ev.type = t;
    events.push(ev);
  }
  return { events };
}

/**
 * Load every replay of `script`: reply index → {@link Replay}. Relative file
 * paths are resolved against `baseDir`.
 *
 * @param source script name for error messages (file path or `<inline script>`)
 * A `.chunks.txt` holding several streams back to back (see
 * {@link splitStreams}) needs `segment` to say which one this reply serves.
 *
 * @throws ZunoError `script_invalid` naming `replies[i].chunks` (unreadable
 *   file, a line that is not JSON with its number, no events, several streams
 *   without `segment`, a `.json` body that is not JSON) or
 *   `replies[i].segment` (past the last stream).
 */
export async function loadReplays(script: Script, source: string, baseDir: string): Promise<Map<number, Replay>> {
  const out = new Map<number, Replay>();
  const issues: ScriptIssue[] = [];
  for (const [i, reply] of script.replies.entries()) {
    const chunks = reply.chunks;
    if (chunks === undefined) continue;
    if (typeof chunks !== 'string') {
      out.set(i, {
        kind: 'stream',
        events: chunks.map((obj) => {
          const ev: RecordedEvent = { data: JSON.stringify(obj) };
          const t = typeOf(obj);
          if (t !== undefined) ev.type = t;
          return ev;
        }),
      });
      continue;
    }
    const path = isAbsolute(chunks) ? chunks : resolve(baseDir, chunks);
    const at = `replies[${i}].chunks`;
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      issues.push({ path: at, message: `cannot read ${path} (${typeof code === 'string' ? code : 'error'})` });
      continue;
    }
    if (/\.json$/i.test(path)) {
      try {
        JSON.parse(text);
      } catch {
        issues.push({ path: at, message: `${path} is not valid JSON` });
        continue;
      }
      out.set(i, { kind: 'json', body: text, status: reply.status ?? 200, file: path });
      continue;
    }
    const parsed = parseChunksText(text);
    if ('badLine' in parsed) {
      issues.push({ path: at, message: `line ${parsed.badLine} of ${path} is not valid JSON` });
      continue;
    }
    const streams = splitStreams(parsed.events);
    if (streams.length === 0) {
      issues.push({ path: at, message: `${path} holds no events` });
      continue;
    }
    if (reply.segment === undefined && streams.length > 1) {
      issues.push({
        path: at,
        message: `${path} holds ${streams.length} streams back to back; pick one with "segment"`,
      });
      continue;
    }
    const events = streams[reply.segment ?? 0];
    if (events === undefined) {
      issues.push({ path: `replies[${i}].segment`, message: `${path} holds ${streams.length} stream(s)` });
      continue;
    }
    out.set(i, { kind: 'stream', events, file: path });
  }
  if (issues.length > 0) throw scriptInvalid(source, 'replay file problem at', issues, 'schema');
  return out;
}
