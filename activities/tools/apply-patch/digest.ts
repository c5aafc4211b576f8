/**
 * Content and operation digests (FT1 credential digest; FT3 "operation
 * digest" carried by every conflict and used by `IdenticalReplay`).
 */
import { createHash } from 'node:crypto';
import type { FileOperation } from './parse.js';

/** SHA-256 of bytes or UTF-8 text, lowercase hex (the read credential's `sha256`). */
export function sha256Hex(data: Uint8Array | string): string {
  return createHash('sha256').update(data).digest('hex');
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
