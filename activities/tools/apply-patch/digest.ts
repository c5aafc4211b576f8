/**
 * Content and operation digests (FT1 credential digest; FT3 "operation
 * digest" carried by every conflict and used by `IdenticalReplay`).
 */
import { createHash } from 'node:crypto';
import { PACE_BYTES, type Pacer } from './pace.js';
import type { FileOperation } from './parse.js';

/** SHA-256 of bytes or UTF-8 text, lowercase hex (the read credential's `sha256`). */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
}

/**
 * {@link sha256Hex} of bytes, hashed in slices of {@link PACE_BYTES} with a
 * `pace.tick()` between slices so hashing a big file leaves the event loop
 * free (see ./pace.ts).
 */
export async function sha256HexPaced(data: Uint8Array, pace: Pacer): Promise<string> {
  const hash = createHash('sha256');
  for (let at = 0; at < data.length; at += PACE_BYTES) {
    if (at > 0) await pace.tick();
    hash.update(data.subarray(at, Math.min(data.length, at + PACE_BYTES)));
  }
  return hash.digest('hex');
}

/**
 * Digest of one file operation: SHA-256 (hex) of its canonical JSON, with the
 * canonical workspace-relative paths it resolved to. Two operations get the
 * same digest exactly when they would do the same thing to the same paths,
 * however the patch text was padded or spelled (`./a` vs `a`).
 */
export function operationDigest(op: FileOperation, path: string, moveTo?: string): string {
  let canonical: unknown;
  if (op.kind === 'add') canonical = ['add', path, op.lines];
  else if (op.kind === 'delete') canonical = ['delete', path];
  else {
    canonical = [
      'update',
      path,
      moveTo ?? null,
      op.chunks.map((c) => [c.header ?? null, c.oldLines, c.newLines, c.contextOf, c.endOfFile]),
    ];
  }
  return sha256Hex(JSON.stringify(canonical));
}
