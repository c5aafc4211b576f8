/**
 * Test helpers for raw SSE bytes and for comparing events with the shapes of
 * the recorded provider streams (`peer-streams.ts`).
 */
import { expect } from 'vitest';
import { peerFiles, peerLines, type PeerSurface } from './peer-streams.js';

/** One SSE event as it was on the wire. */
export interface RawSseEvent {
  /** The `event:` line's value, when there was one. */
  event?: string;
  /** The `data:` payload. */
  data: string;
}

/**
 * Split an SSE body into events (blocks separated by a blank line; `event:`
 * and `data:` lines, one space after the colon as the local server writes).
 * Fails the test on any other line or an unterminated last block.
 */
export function parseSseText(text: string): RawSseEvent[] {
  expect(text === '' || text.endsWith('\n\n'), 'body ends with a blank line').toBe(true);
  const out: RawSseEvent[] = [];
  for (const block of text.split('\n\n').slice(0, -1)) {
    const ev: RawSseEvent = { data: '' };
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) ev.event = line.slice('event: '.length);
      else if (line.startsWith('data: ')) ev.data = line.slice('data: '.length);
      else expect.fail(`unexpected SSE line ${JSON.stringify(line)}`);
    }
    out.push(ev);
  }
  return out;
}

/** Fields of nested objects that are compared one level deep, grouped by their own `type`. */
const NESTED = ['item', 'part', 'delta', 'content_block', 'message', 'response', 'error'];

/** Random padding fields some providers add (SOURCE.md: ignore them). */
const PADDING = new Set(['obfuscation', 'p']);

/** Required keys per event type (and per nested object), learnt from recordings. */
export type RecordedShapes = Map<string, Set<string>>;

function intersect(shapes: RecordedShapes, key: string, all: string[]): void {
  const keys = all.filter((k) => !PADDING.has(k));
  const known = shapes.get(key);
  if (known === undefined) shapes.set(key, new Set(keys));
  else for (const k of [...known]) if (!keys.includes(k)) known.delete(k);
}

function nestedKey(field: string, value: Record<string, unknown>): string {
  return `.${field}${typeof value.type === 'string' ? `:${value.type}` : ''}`;
}

/**
 * The keys every recorded event of a type carries (intersection over all
 * `.chunks.txt` files of `surface`, padding fields left out), and, for the
 * nested objects in {@link NESTED}, the keys every recorded one under the same
 * field with the same nested `type` carries, whatever the event.
 * Keys: `<type>` and `.<field>[:<nested type>]`.
 */
export function recordedShapes(surface: PeerSurface): RecordedShapes {
  const shapes: RecordedShapes = new Map();
  for (const file of peerFiles(surface).filter((f) => f.endsWith('.chunks.txt'))) {
    for (const line of peerLines(surface, file)) {
      const obj = JSON.parse(line) as Record<string, unknown>;
      const type = String(obj.type);
      intersect(shapes, type, Object.keys(obj));
      for (const field of NESTED) {
        const v = obj[field];
        if (v !== null && typeof v === 'object' && !Array.isArray(v)) {
          const nested = v as Record<string, unknown>;
          intersect(shapes, nestedKey(field, nested), Object.keys(nested));
        }
      }
    }
  }
  return shapes;
}

/**
 * Every event: its `event:` name equals its data's `type`, that type occurs in
 * the recordings, and it carries every key the recordings always carry (also
 * in nested objects of a recorded nested type).
 */
export function expectRecordedShapes(events: RawSseEvent[], shapes: RecordedShapes): void {
  for (const ev of events) {
    const obj = JSON.parse(ev.data) as Record<string, unknown>;
    const type = String(obj.type);
    expect(ev.event, `event line of ${ev.data.slice(0, 80)}`).toBe(type);
    const required = shapes.get(type);
    expect(required, `event type ${type} occurs in the recordings`).toBeDefined();
    for (const k of required!) expect(obj, `${type} carries ${k}`).toHaveProperty([k]);
    for (const field of NESTED) {
      const v = obj[field];
      if (v === null || typeof v !== 'object' || Array.isArray(v)) continue;
      const nested = v as Record<string, unknown>;
      const need = shapes.get(nestedKey(field, nested));
      if (need === undefined) continue;
      for (const k of need) expect(nested, `${type}${nestedKey(field, nested)} carries ${k}`).toHaveProperty([k]);
    }
  }
}
