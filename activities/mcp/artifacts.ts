/**
 * Binary parts of an MCP answer kept as artifacts (issue 30 item 3, TD9):
 * images, audio and embedded resource blobs are written under
 * `<workspace>/.zuno/artifacts/` (where withheld output goes, and where
 * `bg artifact` reads) and referenced by path in the result.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultArtifactDir } from '../tools/shell/run.js';

/** File extensions of the MIME types MCP servers commonly send; anything else is `.bin`. */
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/svg+xml': 'svg',
  'audio/wav': 'wav',
  'audio/x-wav': 'wav',
  'audio/mpeg': 'mp3',
  'audio/ogg': 'ogg',
  'application/gzip': 'gz',
  'application/pdf': 'pdf',
  'application/json': 'json',
  'text/plain': 'txt',
};

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * Writes part `index` of call `callId`'s answer (atomically: a temporary file
 * renamed into place, so a retried call replaces it whole).
 * @returns the artifact's absolute path, `mcp-<session>-<call>-<index>.<ext>`.
 */
export async function writeMcpArtifact(
  at: { workspace: string; sessionId?: string; callId?: string },
  index: number,
  mimeType: string | undefined,
  bytes: Buffer,
): Promise<string> {
  const dir = defaultArtifactDir(at.workspace);
  await mkdir(dir, { recursive: true });
  const ext = EXTENSIONS[(mimeType ?? '').toLowerCase()] ?? 'bin';
  const path = join(dir, `mcp-${digest(at.sessionId ?? 'local')}-${digest(at.callId ?? 'local')}-${index}.${ext}`);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.partial`;
  await writeFile(tmp, bytes, { mode: 0o600 });
  await rename(tmp, path);
  return path;
}
