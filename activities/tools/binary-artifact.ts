/**
 * Binary bytes kept as a call's artifact (TD9): the exact bytes under
 * `<workspace>/.zuno/artifacts/` (where withheld output goes, and where
 * `bg artifact` and `read` find them), named after the session and call,
 * written atomically (a temporary file renamed into place) so a retried call
 * replaces its file whole. Used by `webfetch` (a binary body) and MCP calls
 * (image, audio and blob parts).
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultArtifactDir } from './shell/run.js';

/** File extensions of common media types; anything else is `.bin`. */
const EXTENSIONS: Record<string, string> = {
  'application/gzip': 'gz',
  'application/json': 'json',
  'application/pdf': 'pdf',
  'application/wasm': 'wasm',
  'application/x-tar': 'tar',
  'application/zip': 'zip',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'image/gif': 'gif',
  'image/jpeg': 'jpg',
  'image/png': 'png',
  'image/svg+xml': 'svg',
  'image/webp': 'webp',
  'image/x-icon': 'ico',
  'text/plain': 'txt',
};

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * Writes `bytes` as an artifact of the call.
 * @param at the workspace root and the ids the file is named after (absent: `local`).
 * @param name `prefix` (`webfetch`, `mcp`) and an optional `part` suffix (an MCP answer's part index).
 * @param mimeType the bytes' media type (case-insensitive; it picks the extension).
 * @returns the absolute path, `<prefix>-<session digest>-<call digest>[-<part>].<ext>`.
 * @throws the filesystem error when the artifact cannot be written.
 */
export async function writeBinaryArtifact(
  at: { workspace: string; sessionId?: string; callId?: string },
  name: { prefix: string; part?: number },
  mimeType: string | undefined,
  bytes: Buffer,
): Promise<string> {
  const dir = defaultArtifactDir(at.workspace);
  await mkdir(dir, { recursive: true });
  const ext = EXTENSIONS[(mimeType ?? '').toLowerCase()] ?? 'bin';
  const part = name.part !== undefined ? `-${name.part}` : '';
  const path = join(
    dir,
    `${name.prefix}-${digest(at.sessionId ?? 'local')}-${digest(at.callId ?? 'local')}${part}.${ext}`,
  );
  const tmp = `${path}.${randomBytes(6).toString('hex')}.partial`;
  await writeFile(tmp, bytes, { mode: 0o600 });
  await rename(tmp, path);
  return path;
}
