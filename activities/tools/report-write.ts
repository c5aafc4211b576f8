/**
 * `report_write` tool implementation (FT5): publishes a report file under
 * `<workspace>/.zuno/reports/` so a read-only investigation can deliver a
 * document without edit or shell rights.
 *
 * The host picks the path: `<sessionDigest>-<callDigest>-<name>` (12 hex
 * digits of SHA-256 each), so one call always names the same file and two
 * calls never collide. Publishing never overwrites anything: the bytes go to
 * an exclusive temp file in the reports directory and are hard-linked to the
 * final name (`link` fails instead of replacing), so a reader never sees a
 * half-written report.
 *
 * Path authority (FT4): from the real workspace root, `.zuno` and
 * `.zuno/reports` are opened one segment at a time as held directory handles
 * with O_NOFOLLOW|O_DIRECTORY (a symlink or a non-directory is refused;
 * missing ones are created), and on Linux every later operation goes through
 * `/proc/self/fd/{fd}/{segment}`, so swapping a directory for a symlink
 * afterwards cannot redirect the write. Elsewhere the same opens run on plain
 * paths (still refusing symlinks at each segment).
 */
import { constants, existsSync } from 'node:fs';
import { link, lstat, mkdir, open, realpath, unlink, type FileHandle } from 'node:fs/promises';
import { randomBytes } from 'node:crypto';
import { join, resolve } from 'node:path';
import { reportWriteDeclaration, type ReportArtifact, type ReportWriteArgs } from '../../core/tools/report-write.js';
import type { ToolResult } from '../../core/tools/types.js';
import { sha256Hex } from './apply-patch/digest.js';
import { errorResult } from './common.js';
import type { ToolBody } from './tool-body.js';
import { runTool } from './wrapper.js';

/** Workspace-relative directory reports are published in. */
export const REPORTS_DIR = '.zuno/reports';
/** Hex digits of each digest in a report file name. */
export const REPORT_DIGEST_HEX = 12;

/** What `runReportWrite` needs besides its arguments (a `ToolContext` fits). */
export interface ReportWriteContext {
  /** Workspace root; reports go to `<real root>/.zuno/reports/`. */
  workspace: string;
  /** Session id; its digest goes into the file name. */
  sessionId: string;
  /** Tool call id; its digest goes into the file name. */
  callId: string;
  /** Cancels the call before it starts writing (TD10). */
  signal?: AbortSignal;
}

const { O_RDONLY, O_WRONLY, O_CREAT, O_EXCL, O_DIRECTORY, O_NOFOLLOW } = constants;
const PROC_FD = '/proc/self/fd';
const useProcFd = process.platform === 'linux' && existsSync(PROC_FD);
const GITIGNORE = '# Reports published by Zuno report_write: delivery artifacts, not sources.\n*\n';

const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String(err);

/** A directory held open, with the path to reach entries inside it. */
interface HeldDir {
  fh: FileHandle;
  /** Workspace-relative path, for messages. */
  rel: string;
  /** Base path for entries: `/proc/self/fd/{fd}` on Linux, the absolute path elsewhere. */
  base: string;
}

class Refusal {
  constructor(readonly result: ToolResult) {}
}

function entry(dir: HeldDir, name: string): string {
  return `${dir.base}/${name}`;
}

async function holdDir(abs: string, rel: string, flags: number): Promise<HeldDir> {
  const fh = await open(abs, O_RDONLY | O_DIRECTORY | flags);
  return { fh, rel, base: useProcFd ? `${PROC_FD}/${fh.fd}` : abs };
}

/**
 * Opens (creating when missing) directory `name` inside `parent` without
 * following a symlink. Returns the held directory and whether it was created.
 */
async function openChildDir(parent: HeldDir, name: string): Promise<[HeldDir, boolean]> {
  const rel = parent.rel === '.' ? name : `${parent.rel}/${name}`;
  const path = entry(parent, name);
  let created = false;
  for (let attempt = 0; ; attempt++) {
    try {
      return [await holdDir(path, rel, O_NOFOLLOW), created];
    } catch (err) {
      const code = errCode(err);
      if (code === 'ENOENT' && attempt === 0) {
        try {
          await mkdir(path, 0o755);
          created = true;
        } catch (e) {
          if (errCode(e) !== 'EEXIST') throw e;
        }
        continue;
      }
      if (code === 'ELOOP' || code === 'ENOTDIR' || code === 'EMLINK') {
        const st = await lstat(path).catch(() => undefined);
        if (st?.isSymbolicLink()) {
          throw new Refusal(
            errorResult(
              'symlink_ancestor',
              `${rel} is a symbolic link; report_write publishes only into a real ${REPORTS_DIR} directory inside the workspace and never follows a link there. Nothing was written.`,
              { path: rel },
            ),
          );
        }
        throw new Refusal(
          errorResult(
            'not_a_directory',
            `${rel} exists and is not a directory; report_write needs ${REPORTS_DIR} to be a directory. Nothing was written.`,
            { path: rel },
          ),
        );
      }
      throw err;
    }
  }
}

/** The file name a call's report gets: `<sessionDigest>-<callDigest>-<name>`. */
export function reportFileName(
  sessionId: string,
  callId: string,
  name: string,
): {
  file: string;
  sessionDigest: string;
  callDigest: string;
} {
  const sessionDigest = sha256Hex(sessionId).slice(0, REPORT_DIGEST_HEX);
  const callDigest = sha256Hex(callId).slice(0, REPORT_DIGEST_HEX);
  return { file: `${sessionDigest}-${callDigest}-${name}`, sessionDigest, callDigest };
}

async function writeExclusive(path: string, bytes: Buffer): Promise<void> {
  const fh = await open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW, 0o644);
  try {
    await fh.writeFile(bytes);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

/** SHA-256 of the regular file at `path` (not following a final symlink), or undefined. */
async function existingDigest(path: string): Promise<string | undefined> {
  let fh: FileHandle;
  try {
    fh = await open(path, O_RDONLY | O_NOFOLLOW);
  } catch {
    return undefined;
  }
  try {
    if (!(await fh.stat()).isFile()) return undefined;
    return sha256Hex(await fh.readFile());
  } finally {
    await fh.close();
  }
}

function published(artifact: ReportArtifact, existing: boolean): ToolResult {
  const again = existing ? ' This call had already published it; nothing new was written.' : '';
  return {
    output: `Published report ${artifact.path} (${artifact.bytes} bytes, sha256 ${artifact.sha256}).${again} Reports are never overwritten; refer to it by this exact path.`,
    isError: false,
    data: { reportArtifact: artifact, existing },
  };
}

/**
 * Runs `report_write`.
 *
 * @param args `{ name, content }`: a plain file name (see
 *   `reportNameProblem` in core/tools/report-write.ts) and the full UTF-8
 *   body, at most 1 MiB.
 * @returns success: `data.reportArtifact: ReportArtifact` (`path` =
 *   `.zuno/reports/<sessionDigest>-<callDigest>-<name>`, `absolutePath`,
 *   `name`, `bytes`, `sha256`, `sessionDigest`, `callDigest`) and
 *   `data.existing` (true when this same call had already published the
 *   identical file: its receipt is returned, nothing is written). Creating
 *   `.zuno/reports` also drops a `.gitignore` (`*`) in it, so reports are
 *   git-ignored. Error codes (nothing written): `invalid_arguments` (unsafe
 *   or overlong name, content over 1 MiB), `symlink_ancestor` (`.zuno` or
 *   `.zuno/reports` is a symlink), `not_a_directory`, `report_exists` (the
 *   chosen path holds something else: never overwritten),
 *   `workspace_unavailable`, `write_failed`, `cancelled`. Never throws for
 *   these.
 */
async function reportWrite(args: ReportWriteArgs, ctx: ReportWriteContext): Promise<ToolResult> {
  const { name, content } = args;
  if (ctx.signal?.aborted) {
    return errorResult('cancelled', 'report_write was cancelled before it wrote anything; nothing was published.', {
      cancelled: true,
    });
  }
  let root: string;
  try {
    root = await realpath(resolve(ctx.workspace));
  } catch (err) {
    return errorResult(
      'workspace_unavailable',
      `The workspace root ${ctx.workspace} cannot be resolved (${errCode(err)}).`,
    );
  }
  const bytes = Buffer.from(content, 'utf8');
  const sha256 = sha256Hex(bytes);
  const { file, sessionDigest, callDigest } = reportFileName(ctx.sessionId, ctx.callId, name);
  const rel = `${REPORTS_DIR}/${file}`;
  const artifact: ReportArtifact = {
    path: rel,
    absolutePath: join(root, '.zuno', 'reports', file),
    name,
    bytes: bytes.length,
    sha256,
    sessionDigest,
    callDigest,
  };

  const held: HeldDir[] = [];
  try {
    const rootDir = await holdDir(root, '.', 0);
    held.push(rootDir);
    const [zuno] = await openChildDir(rootDir, '.zuno');
    held.push(zuno);
    const [reports, created] = await openChildDir(zuno, 'reports');
    held.push(reports);
    if (created) await writeExclusive(entry(reports, '.gitignore'), Buffer.from(GITIGNORE)).catch(() => undefined);

    const finalPath = entry(reports, file);
    const tmpPath = entry(reports, `.${randomBytes(8).toString('hex')}.zuno-tmp`);
    try {
      await writeExclusive(tmpPath, bytes);
      await link(tmpPath, finalPath);
    } catch (err) {
      if (errCode(err) !== 'EEXIST') {
        return errorResult('write_failed', `Publishing ${rel} failed (${errCode(err)}); nothing was published.`, {
          path: rel,
          code: errCode(err),
        });
      }
      // The final name exists: this same call published before (same ids → same name).
      if ((await existingDigest(finalPath)) === sha256) return published(artifact, true);
      return errorResult(
        'report_exists',
        `${rel} already exists with other content and is never overwritten; nothing was published. Use another name.`,
        { path: rel },
      );
    } finally {
      await unlink(tmpPath).catch(() => undefined);
    }
    await reports.fh.sync().catch(() => undefined);
    return published(artifact, false);
  } catch (err) {
    if (err instanceof Refusal) return err.result;
    return errorResult('write_failed', `Publishing ${rel} failed (${errCode(err)}); nothing was published.`, {
      path: rel,
      code: errCode(err),
    });
  } finally {
    for (const d of held.reverse()) await d.fh.close().catch(() => undefined);
  }
}

/** The `report_write` tool's body (activities/tools/index.ts wraps it: validation, TD9 caps). */
export const reportWriteTool: ToolBody<ReportWriteArgs> = { run: reportWrite };

/**
 * Runs one `report_write` call through the shared wrapper (activities/tools/wrapper.ts):
 * `rawArgs` is validated against the declaration (an `invalid_arguments`
 * result when it does not match), then the TD9 caps apply.
 */
export function runReportWrite(rawArgs: unknown, ctx: ReportWriteContext): Promise<ToolResult> {
  return runTool(reportWriteDeclaration, { ...reportWriteTool, run: reportWrite }, rawArgs, ctx);
}
