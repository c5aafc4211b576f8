/**
 * Which files `bg artifact` may read (BG1, TD9): withheld-output artifacts
 * under `<workspace>/.zuno/artifacts/` and background task output files
 * `<workspace>/.zuno/bg/<session key>/<taskID>/output`. Nothing else: no
 * `..`, no absolute path elsewhere, no symlink leading out (the real path
 * must stay inside the real workspace's `.zuno/artifacts` or be a real task
 * output file).
 */
import { constants } from 'node:fs';
import { open, readlink, realpath, type FileHandle } from 'node:fs/promises';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import type { ToolResult } from '../../../core/tools/types.js';
import { errorResult } from '../common.js';
import { isValidTaskId, sessionKey } from './store.js';

/** An artifact opened for reading. */
export interface OpenedArtifact {
  /** Real absolute path. */
  path: string;
  handle: FileHandle;
  /** Size when opened, in bytes. */
  size: number;
}

/** Kinds of file `bg artifact` may read, by workspace-relative path segments. */
function allowedSegments(segs: string[], ownKey: string): boolean {
  if (segs[0] !== '.zuno') return false;
  if (segs[1] === 'artifacts') return segs.length >= 3;
  // Background output of this session only: another session's tasks are not ours to read.
  return segs[1] === 'bg' && segs.length === 5 && segs[2] === ownKey && isValidTaskId(segs[3]!) && segs[4] === 'output';
}

function relSegments(root: string, p: string): string[] | null {
  const r = relative(root, p);
  if (r === '' || r.startsWith('..') || isAbsolute(r)) return null;
  return r.split(sep);
}

function refused(outputPath: string, why: string): ToolResult {
  return errorResult(
    'artifact_path_refused',
    `bg artifact reads only withheld-output artifacts under .zuno/artifacts/ and background task output under .zuno/bg/; ${JSON.stringify(outputPath)} ${why}. Pass the path exactly as the shell result printed it.`,
    { outputPath },
  );
}

/**
 * Resolves and opens `outputPath` (absolute as printed in a withheld-output
 * notice, or workspace-relative) for reading.
 *
 * @returns `{ ok: true, artifact }` (close `artifact.handle`), or
 *   `{ ok: false, result }`: `artifact_path_refused` (outside the two
 *   places, `..` segments, symlink escape), `not_found`, `not_a_file`,
 *   `cannot_read`.
 */
export async function openArtifact(
  workspace: string,
  outputPath: string,
  sessionId: string,
): Promise<{ ok: true; artifact: OpenedArtifact } | { ok: false; result: ToolResult }> {
  if (outputPath.includes('\0')) return { ok: false, result: refused(outputPath, 'contains a NUL byte') };
  if (outputPath.split(/[\\/]/).includes('..')) return { ok: false, result: refused(outputPath, 'contains `..`') };
  const given = resolve(workspace);
  let root: string;
  try {
    root = await realpath(given);
  } catch {
    return { ok: false, result: errorResult('not_found', `The workspace ${given} does not exist.`) };
  }
  const lexical = isAbsolute(outputPath) ? resolve(outputPath) : resolve(given, outputPath);
  const lexSegs = relSegments(given, lexical) ?? relSegments(root, lexical);
  if (!lexSegs || !allowedSegments(lexSegs, sessionKey(sessionId)))
    return { ok: false, result: refused(outputPath, 'is not such a file') };
  let real: string;
  try {
    real = await realpath(lexical);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return code === 'ENOENT' || code === 'ENOTDIR'
      ? { ok: false, result: errorResult('not_found', `No artifact at ${JSON.stringify(outputPath)}.`, { outputPath }) }
      : { ok: false, result: errorResult('cannot_read', `Cannot resolve ${JSON.stringify(outputPath)} (${code}).`) };
  }
  const realSegs = relSegments(root, real);
  if (!realSegs || !allowedSegments(realSegs, sessionKey(sessionId)))
    return { ok: false, result: refused(outputPath, `resolves through a symlink to ${real}`) };
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO planted under .zuno/ must not block the worker; it is refused below as not a file.
    handle = await open(real, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, result: errorResult('cannot_read', `Cannot open ${JSON.stringify(outputPath)} (${code}).`) };
  }
  try {
    const st = await handle.stat();
    if (!st.isFile()) {
      await handle.close();
      return { ok: false, result: errorResult('not_a_file', `${JSON.stringify(outputPath)} is not a regular file.`) };
    }
    // Bind the check to what was opened: a directory swapped for a symlink in between is refused.
    const opened = await readlink(`/proc/self/fd/${handle.fd}`).catch(() => real);
    if (opened !== real) {
      await handle.close();
      return { ok: false, result: refused(outputPath, 'changed while it was opened') };
    }
    return { ok: true, artifact: { path: real, handle, size: st.size } };
  } catch (err) {
    await handle.close().catch(() => {});
    const code = (err as NodeJS.ErrnoException).code;
    return { ok: false, result: errorResult('cannot_read', `Cannot read ${JSON.stringify(outputPath)} (${code}).`) };
  }
}
