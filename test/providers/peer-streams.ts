/**
 * Where the recorded provider streams live (`<shared>/peer-cases/provider-streams/`,
 * see its SOURCE.md): `$ZUNO_PEER_CASES/provider-streams`, else
 * `<repo>/../shared/peer-cases/provider-streams`. Shared by the peer suites of
 * every surface; a missing folder fails those suites (held-out tests must not
 * silently vanish).
 */
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const REPO = fileURLToPath(new URL('../../', import.meta.url));

/** Root of the recorded provider streams. */
export const PEER_STREAMS = resolve(
  process.env.ZUNO_PEER_CASES ?? resolve(REPO, '../shared/peer-cases'),
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
