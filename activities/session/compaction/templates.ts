/**
 * The compaction templates (CP9): `summary.md`, the system prompt of the
 * summary request, and `continuation.md`, which opens the `runtime.compaction`
 * segment of every request that carries a valid summary. Task-neutral,
 * grant no authorization. Read from the source tree beside this module (they
 * are not copied into `dist/`: infra/install-root.ts `sourceRelative`), once
 * per process.
 */
import { readFileSync } from 'node:fs';
import { sourceRelative } from '../../infra/install-root.js';

const cache = new Map<string, string>();

function template(name: 'summary' | 'continuation'): string {
  let text = cache.get(name);
  if (text === undefined) {
    text = readFileSync(sourceRelative(import.meta.url, `./${name}.md`), 'utf8').trim();
    cache.set(name, text);
  }
  return text;
}

/** The summary request's system prompt (compaction/summary.md, CP9, CP11). @throws the fs error when the file is missing. */
export function summaryTemplate(): string {
  return template('summary');
}

/** The opening of the `runtime.compaction` segment (compaction/continuation.md, CP9). @throws the fs error when missing. */
export function continuationTemplate(): string {
  return template('continuation');
}
