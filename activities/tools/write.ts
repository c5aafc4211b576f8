/**
 * `write` tool implementation (FT2): creates a file, or deliberately replaces
 * an existing one whole.
 *
 * Built from the apply_patch engine's modules so the two editing paths share
 * one set of rules: FT4 path authority (path-authority.ts via apply-patch/paths.ts), the
 * workspace mutation lock (apply-patch/lock.ts), the on-disk state model
 * (apply-patch/fs-state.ts), publishing by temp file + rename with parent
 * directories created and a re-check before the rename
 * (apply-patch/publish.ts), and the typed FT3 credential conflicts
 * (apply-patch/conflicts.ts).
 *
 * Replacing an existing file requires the session's read credential for it
 * whose `sha256` is the file's current digest: none → `ReadRequired`, another
 * digest → `StaleRead`; either way nothing is written. A new file needs no
 * credential. A successful write returns the credential of the new content,
 * so a later apply_patch of the same file needs no re-read.
 */
import { realpath } from 'node:fs/promises';
import { resolve } from 'node:path';
import type { ReadCredential } from '../../core/tools/read.js';
import type { ToolResult } from '../../core/tools/types.js';
import { writeDeclaration, type WriteArgs } from '../../core/tools/write.js';
import { readRequired, staleRead, type ConflictBase } from './apply-patch/conflicts.js';
import { unifiedDiff, type DiffSide } from './apply-patch/diff.js';
import { sha256Hex, sha256HexPaced } from './apply-patch/digest.js';
import { loadDiskState, type DiskState } from './apply-patch/fs-state.js';
import { workspaceMutationLock, type MutationLock } from './apply-patch/lock.js';
import { Pacer } from './apply-patch/pace.js';
import { resolvePatchPath, type PatchPath } from './apply-patch/paths.js';
import type { PublishPlan, Slot } from './apply-patch/precheck.js';
import { publish, type PublishHooks } from './apply-patch/publish.js';
import type { ConflictDetail, FileChange } from './apply-patch/result.js';
import { decodeText } from './apply-patch/text.js';
import { errorResult } from './common.js';
import { withAuthorityScope, type AuthorityScope } from './path-authority.js';
import type { ToolBody } from './tool-body.js';
import { runTool } from './wrapper.js';

/** Largest diff kept in the result's `data.diff` (bytes); a larger one is omitted and flagged. */
export const WRITE_DIFF_MAX_BYTES = 256 * 1024;

/** What `runWrite` needs besides its arguments (a `ToolContext` fits). */
export interface WriteContext {
  /** Workspace root; the path is relative to it (an absolute path must lie inside it). */
  workspace: string;
  /**
   * The session's newest read credential for a canonical workspace-relative
   * path (`/`-separated, symlinks resolved, as `read` reports it). Absent or
   * returning undefined: no credential, so replacing an existing file is
   * `ReadRequired`.
   */
  credentials?: (relPath: string) => ReadCredential | undefined;
  /** Cancels the call before it starts publishing (TD10). */
  signal?: AbortSignal;
  /** The lock to check and publish under; default: the process-wide lock of the workspace (shared with apply_patch). */
  lock?: MutationLock;
  /** Test observation points around publishing (see PublishHooks). */
  hooks?: PublishHooks;
}

const short = (d: string | null | undefined) => (d ? d.slice(0, 12) : 'none');

/** Digest of one write operation: SHA-256 of `["write", <canonical path>, <sha256 of the new bytes>]`. */
export function writeOperationDigest(rel: string, contentSha256: string): string {
  return sha256Hex(JSON.stringify(['write', rel, contentSha256]));
}

/** A `ReadRequired` (no credential) or `StaleRead` (another digest) conflict worded for `write`. */
function writeConflict(b: ConflictBase, credentialDigest: string | undefined): ConflictDetail {
  if (credentialDigest === undefined) {
    return {
      ...readRequired(b, 'replaces'),
      requiredAction: `Read ${b.resource} with the read tool, then decide whether to replace it whole (write) or edit it (apply_patch).`,
      message: `${b.resource} exists and write would replace it, but it has not been read in this session; nothing was changed.`,
    };
  }
  return {
    ...staleRead(b, credentialDigest),
    requiredAction: `Read ${b.resource} again and rebuild the new content from its current content.`,
    message: `${b.resource} changed since it was read (read sha256 ${short(credentialDigest)}…, now ${short(b.currentDigest)}…); nothing was changed.`,
  };
}

function conflictResult(c: ConflictDetail): ToolResult {
  return {
    output: `${c.conflict}: ${c.message}\nRequired action: ${c.requiredAction}`,
    isError: true,
    errorCode: c.conflict,
    data: { status: 'conflict', path: c.resource, ...c },
  };
}

function cancelled(): ToolResult {
  return errorResult('cancelled', 'write was cancelled before it wrote anything; nothing was changed.', {
    cancelled: true,
  });
}

async function diffSide(path: string, bytes: Buffer, pace: Pacer): Promise<DiffSide | undefined> {
  const t = await decodeText(bytes, pace);
  return typeof t === 'object' ? { path, lines: t.lines, finalNewline: t.finalNewline } : undefined;
}

/** The unified diff of the write, or undefined when either side is not UTF-8 text; paced (apply-patch/pace.ts). */
async function writeDiff(rel: string, original: DiskState, bytes: Buffer, pace: Pacer): Promise<string | undefined> {
  const after = await diffSide(rel, bytes, pace);
  if (!after) return undefined;
  if (original.kind !== 'file') return unifiedDiff(null, after, undefined, pace);
  const before = await diffSide(rel, original.bytes, pace);
  return before ? unifiedDiff(before, after, undefined, pace) : undefined;
}

function diffData(diff: string | undefined): Record<string, unknown> {
  if (diff === undefined) return { diff: null, diffOmitted: 'not_text' };
  if (Buffer.byteLength(diff) > WRITE_DIFF_MAX_BYTES) return { diff: null, diffOmitted: 'too_large' };
  return { diff };
}

/**
 * Runs `write`.
 *
 * Under the workspace mutation lock (the one apply_patch uses): resolves the
 * path (containment as in apply_patch; a final-segment symlink inside the
 * workspace is followed and survives), reads the current state, checks the
 * credential when the file exists, then publishes: parent directories are
 * created, the bytes go to a temp file in the target directory, the target is
 * re-checked and the temp file renamed over it. An existing file keeps its
 * permission bits. Content is written exactly as given (UTF-8; no line-ending
 * or BOM adjustment: the write is a whole replacement).
 *
 * @param args `{ path, content }`.
 * @returns success: `Created …` / `Replaced …` / `… already has exactly this
 *   content` (nothing written); `data`: `{ path, op: 'create' | 'replace' |
 *   'unchanged', bytes, sha256, credential: ReadCredential (of the new
 *   content), operationDigest, changedPaths, writtenPaths (same list, the
 *   seed's metadata key; empty when unchanged), diff (unified; null with
 *   `diffOmitted: 'not_text' | 'too_large'`) }`.
 *   Typed errors (nothing written): `ReadRequired`, `StaleRead` (`data` is the
 *   FT3 conflict: resource, operationDigest, currentDigest, requiredAction),
 *   `path_outside_workspace`, `invalid_path`, `not_a_directory`,
 *   `cannot_access`, `not_a_file`, `cannot_read`, `workspace_unavailable`,
 *   `write_failed`, `invalid_arguments`, `cancelled`. `uncertain` when the
 *   publishing rename failed (`data.uncertain: { changedPaths, cause }`,
 *   `data.changedPaths`): inspect, never re-run mechanically (TD3). Never
 *   throws for these.
 */
async function write(args: WriteArgs, ctx: WriteContext): Promise<ToolResult> {
  if (args.path.endsWith('/') || args.path.endsWith('\\')) {
    return errorResult(
      'invalid_path',
      `Path ${JSON.stringify(args.path)} ends with a separator; write needs a file path, not a directory.`,
      { path: args.path },
    );
  }
  let root: string;
  try {
    root = await realpath(resolve(ctx.workspace));
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return errorResult('workspace_unavailable', `The workspace root ${ctx.workspace} cannot be resolved (${code}).`);
  }
  if (ctx.signal?.aborted) return cancelled();
  const lock = ctx.lock ?? workspaceMutationLock(root);
  return lock.runExclusive(() => withAuthorityScope((scope) => writeLocked(args, root, ctx, scope)));
}

async function writeLocked(
  args: WriteArgs,
  root: string,
  ctx: WriteContext,
  scope: AuthorityScope,
): Promise<ToolResult> {
  /** Big content is hashed, decoded and diffed in paced slices so the activity's heartbeat timer keeps firing. */
  const pace = new Pacer();
  const loaded = await loadTarget(args, root, ctx, scope, pace);
  if ('isError' in loaded) return loaded;
  const { target, original } = loaded;
  const rel = target.rel;
  const bytes = Buffer.from(args.content, 'utf8');
  const sha256 = await sha256HexPaced(bytes, pace);
  const digest = writeOperationDigest(rel, sha256);
  const w: WriteFacts = {
    rel,
    bytes,
    sha256,
    digest,
    original,
    base: { resource: rel, operationDigest: digest, currentDigest: original.kind === 'file' ? original.sha256 : null },
  };
  if (original.kind === 'file') {
    const stop = existingFileStop(w, original, ctx);
    if (stop) return stop;
  }
  if (ctx.signal?.aborted) return cancelled();

  const diff = await writeDiff(rel, original, bytes, pace);
  const published = await publish(writePlan(w, target, diff), ctx.hooks);
  return publishedResult(w, published, diff);
}

/** What one write is: its path, new content and digests, the file's state before and the conflict base. */
interface WriteFacts {
  rel: string;
  bytes: Buffer;
  sha256: string;
  digest: string;
  original: DiskState;
  base: ConflictBase;
}

/** The authorized target and its current state, or the error result (nothing written). */
async function loadTarget(
  args: WriteArgs,
  root: string,
  ctx: WriteContext,
  scope: AuthorityScope,
  pace: Pacer,
): Promise<{ target: PatchPath; original: DiskState } | ToolResult> {
  const resolved = await resolvePatchPath(scope, root, args.path, ctx.workspace);
  if (!resolved.ok) {
    const { code, message, path } = resolved.refusal;
    return errorResult(code, message, { path });
  }
  const target = resolved.path;
  const rel = target.rel;
  let original: DiskState;
  try {
    original = await loadDiskState(target.authority.target, pace);
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code ?? String(err);
    return errorResult('cannot_read', `Cannot read ${rel}: ${code}; nothing was changed.`, { path: rel, code });
  }
  if (original.kind === 'dir' || original.kind === 'other') {
    return errorResult(
      'not_a_file',
      `${rel} is ${original.kind === 'dir' ? 'a directory' : 'not a regular file (a FIFO, socket or device)'}; write replaces regular files only. Nothing was changed.`,
      { path: rel },
    );
  }
  return { target, original };
}

/** For an existing file: the FT2/FT3 conflict (no or stale credential), or `unchanged` when it already has the content. */
function existingFileStop(
  w: WriteFacts,
  original: Extract<DiskState, { kind: 'file' }>,
  ctx: WriteContext,
): ToolResult | undefined {
  const { rel, bytes, sha256 } = w;
  const cred = ctx.credentials?.(rel);
  if (!cred) return conflictResult(writeConflict(w.base, undefined));
  if (cred.sha256 !== original.sha256) return conflictResult(writeConflict(w.base, cred.sha256));
  if (!original.bytes.equals(bytes)) return undefined;
  const credential: ReadCredential = { path: rel, sha256, bytes: bytes.length, mtimeMs: original.mtimeMs };
  return {
    output: `${rel} already has exactly this content (${bytes.length} bytes); nothing was written.`,
    isError: false,
    data: {
      path: rel,
      op: 'unchanged',
      bytes: bytes.length,
      sha256,
      credential,
      operationDigest: w.digest,
      changedPaths: [],
      writtenPaths: [],
      diff: '',
    },
  };
}

/** The one-file publish plan of a write (apply_patch's publisher; an existing file keeps its mode). */
function writePlan(w: WriteFacts, target: PatchPath, diff: string | undefined): PublishPlan {
  const { original, bytes, digest } = w;
  const mode = original.kind === 'file' ? original.mode : undefined;
  const slot: Slot = {
    path: target,
    original,
    view: mode === undefined ? { kind: 'file', bytes } : { kind: 'file', bytes, mode },
    touched: true,
    firstDigest: digest,
    last: { digest, change: 0 },
  };
  const change: FileChange = {
    path: w.rel,
    op: original.kind === 'file' ? 'update' : 'add',
    diff: diff ?? '',
    newSha256: w.sha256,
    operationDigest: digest,
    fuzz: 0,
  };
  return {
    slots: [slot],
    writes: [mode === undefined ? { slot, bytes } : { slot, bytes, mode }],
    unlinks: [],
    changes: [change],
  };
}

/** The tool result of a publish outcome. */
function publishedResult(
  w: WriteFacts,
  published: Awaited<ReturnType<typeof publish>>,
  diff: string | undefined,
): ToolResult {
  const { rel, original } = w;
  switch (published.status) {
    case 'applied':
      return appliedResult(w, published.changes[0]?.credential, diff);
    case 'conflict':
      // the file appeared or changed on disk between the check and the rename (another process)
      return conflictResult(
        writeConflict(
          { ...w.base, currentDigest: published.currentDigest },
          original.kind === 'file' ? original.sha256 : undefined,
        ),
      );
    case 'failed':
      return errorResult('write_failed', published.message, { path: rel });
    case 'uncertain': {
      const { changedPaths, cause } = published.uncertain;
      return errorResult(
        'uncertain',
        `write failed while publishing ${rel}: ${cause}. Paths observed changed: ${changedPaths.length > 0 ? changedPaths.join(', ') : 'none'}. Read ${rel} to see its actual state before doing anything else; do not resend the write unchanged.`,
        { path: rel, uncertain: published.uncertain, changedPaths, writtenPaths: changedPaths },
      );
    }
  }
}

function appliedResult(w: WriteFacts, issued: FileChange['credential'], diff: string | undefined): ToolResult {
  const { rel, bytes, original } = w;
  const credential: ReadCredential | undefined = issued
    ? { path: issued.path, sha256: issued.sha256, bytes: issued.bytes, mtimeMs: issued.mtimeMs }
    : undefined;
  const was = original.kind === 'file' ? original.bytes.length : undefined;
  const replaced = was !== undefined;
  return {
    output: replaced
      ? `Replaced ${rel} (${bytes.length} bytes; was ${was} bytes).`
      : `Created ${rel} (${bytes.length} bytes).`,
    isError: false,
    data: {
      path: rel,
      op: replaced ? 'replace' : 'create',
      bytes: bytes.length,
      sha256: w.sha256,
      credential,
      operationDigest: w.digest,
      changedPaths: [rel],
      writtenPaths: [rel],
      ...diffData(diff),
    },
  };
}

/** The `write` tool's body (activities/tools/index.ts wraps it: validation, TD9 caps); it proves prior reads with the session's read credentials (FT2). */
export const writeTool: ToolBody<WriteArgs> = { run: write, needsReadCredentials: true };

/**
 * Runs one `write` call through the shared wrapper (activities/tools/wrapper.ts):
 * `rawArgs` is validated against the declaration (an `invalid_arguments`
 * result when it does not match), then the TD9 caps apply.
 */
export function runWrite(rawArgs: unknown, ctx: WriteContext): Promise<ToolResult> {
  return runTool(writeDeclaration, { ...writeTool, run: write }, rawArgs, ctx);
}
