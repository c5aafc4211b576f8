/**
 * A binary `webfetch` body kept as an artifact (issue 31 item 2, TD9): the
 * exact bytes under `<workspace>/.zuno/artifacts/` (where withheld output and
 * MCP binary parts go, and where `bg artifact` reads), named after the
 * session and call, written atomically so a retried call replaces it whole.
 */
import { createHash, randomBytes } from 'node:crypto';
import { mkdir, rename, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { defaultArtifactDir } from '../shell/run.js';

/** File extensions of common binary media types; anything else is `.bin`. */
const EXTENSIONS: Record<string, string> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/gif': 'gif',
  'image/webp': 'webp',
  'image/x-icon': 'ico',
  'application/pdf': 'pdf',
  'application/zip': 'zip',
  'application/gzip': 'gz',
  'application/x-tar': 'tar',
  'application/wasm': 'wasm',
};

function digest(text: string): string {
  return createHash('sha256').update(text).digest('hex').slice(0, 12);
}

/**
 * Writes `bytes` as the call's artifact.
 * @param at the workspace root and the ids the file is named after (absent: `local`).
 * @returns the artifact's absolute path, `webfetch-<session digest>-<call digest>.<ext>`.
 * @throws the filesystem error when the artifact cannot be written (the activity records `tool_failed`).
 */
export async function writeWebfetchArtifact(
  at: { workspace: string; sessionId?: string; callId?: string },
  mime: string,
  bytes: Buffer,
): Promise<string> {
  const dir = defaultArtifactDir(at.workspace);
  await mkdir(dir, { recursive: true });
  const ext = EXTENSIONS[mime] ?? 'bin';
  const path = join(dir, `webfetch-${digest(at.sessionId ?? 'local')}-${digest(at.callId ?? 'local')}.${ext}`);
  const tmp = `${path}.${randomBytes(6).toString('hex')}.partial`;
  await writeFile(tmp, bytes, { mode: 0o600 });
  await rename(tmp, path);
  return path;
}
