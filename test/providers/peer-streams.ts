/**
 * Where the recorded provider streams live (a copy of the shared peer cases,
 * kept in the repository; see its SOURCE.md): `$ZUNO_PEER_CASES/provider-streams`, else
 * `<repo>/test/fixtures/peer-cases/provider-streams`. Shared by the peer suites of
 * every surface; a missing folder fails those suites (held-out tests must not
 * silently vanish). Also the case shapes and checks those suites share.
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { expect } from 'vitest';
import { ProviderError } from '../../activities/providers/errors.js';
import type { ModelResponse } from '../../activities/providers/types.js';
import { expectNoSecrets, rejectionOf } from './helpers.js';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Root of the recorded provider streams. */
export const PEER_STREAMS = resolve(
  process.env.ZUNO_PEER_CASES ?? resolve(REPO, 'test/fixtures/peer-cases'),
  'provider-streams',
);

/** Folder of one surface's recordings. */
export type PeerSurface = 'openai-chat' | 'openai-responses' | 'anthropic-messages';

/** Absolute path of a recording. */
export function peerFile(surface: PeerSurface, name: string): string {
  return join(PEER_STREAMS, surface, name);
}

/** The `.chunks.txt` and `.json` files of a surface folder, sorted; `[]` when the folder is missing. */
export function peerFiles(surface: PeerSurface): string[] {
  const dir = join(PEER_STREAMS, surface);
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith('.chunks.txt') || f.endsWith('.json'))
    .sort();
}

/** The non-empty lines of a `.chunks.txt`, unchanged (each one JSON event). */
export function peerLines(surface: PeerSurface, name: string): string[] {
  return readFileSync(peerFile(surface, name), 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '');
}

/** Text and reasoning deltas as the adapter forwarded them. */
export interface PeerDeltas {
  text: string[];
  reasoning: string[];
}

/** A recorded stream the adapter assembles: what it checks, and how. */
export interface PeerStreamCase {
  checks: string;
  expect: (r: ModelResponse, deltas: PeerDeltas) => void;
}

/** A recorded error body: what it checks, the status it is served with, and how. */
export interface PeerErrorCase {
  checks: string;
  /** HTTP status the body is served with (SOURCE.md: not recorded). */
  status: number;
  expect: (e: ProviderError) => void;
}

/** The kinds of a response's parts, in order. */
export const partKinds = (r: ModelResponse): string[] => r.parts.map((p) => p.kind);

/** The surface folder is present and holds exactly the files named by `covered` (in any order). */
export function expectPeerFolderCovered(surface: PeerSurface, covered: string[]): void {
  expect(existsSync(`${PEER_STREAMS}/${surface}`), `missing ${PEER_STREAMS}/${surface} (set ZUNO_PEER_CASES)`).toBe(
    true,
  );
  expect(peerFiles(surface)).toEqual([...covered].sort());
}

/** The views of `r` agree with its ordered parts and with what was streamed. */
export function expectViewsAgree(r: ModelResponse, deltas: PeerDeltas): void {
  expect(deltas.text.join('')).toBe(r.text);
  expect(deltas.reasoning.join('')).toBe(r.reasoning);
  expect(r.parts.filter((p) => p.kind === 'tool_call').map(({ kind: _k, ...call }) => call)).toEqual(r.toolCalls);
}

/** Await a call that must fail with a {@link ProviderError} free of secrets (PR6); returns the error. */
export async function peerFailure(p: Promise<unknown>): Promise<ProviderError> {
  const err = await rejectionOf(p);
  expect(err).toBeInstanceOf(ProviderError);
  expectNoSecrets(err);
  return err as ProviderError;
}
