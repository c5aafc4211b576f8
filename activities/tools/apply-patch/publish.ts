/**
 * Publishing a pre-checked patch (FT3, FT4): every new content is first
 * written to a temp file in its target's directory (parent directories
 * created as needed), the touched files are re-checked against their
 * pre-check state, then each temp file is renamed over its target and removed
 * files are unlinked. Every one of these goes through the directory
 * descriptor held by the path's FT4 authority (`/proc/self/fd/{fd}/{name}`,
 * see ../path-authority.ts), never through the path as a string, so a
 * directory swapped for a symlink after authorization cannot redirect it.
 *
 * - Before its first temp file in a directory, stale temp files a killed
 *   worker left there are swept (./temp-files.ts: Zuno's exact naming only,
 *   never one a publish of this process holds).
 * - A failure while preparing (before the first rename) removes the temp
 *   files and created directories: an ordinary `failed` result, original
 *   bytes untouched.
 * - A file that changed on disk since the pre-check (another process; the
 *   mutation lock is in-process only) is a `StaleRead` conflict, zero writes.
 * - A failure during the renames/unlinks is `uncertain`: the paths observed to
 *   differ from their pre-check state are listed; nothing is retried.
 */
import { open, rename, stat, unlink } from 'node:fs/promises';
import { removeCreatedDirs, type CreatedDir } from '../path-authority.js';
import { staleRead, readRequired } from './conflicts.js';
import { loadDiskState, statChanged, type DiskState } from './fs-state.js';
import type { PublishPlan, Slot } from './precheck.js';
import type { FileChange, PatchApplied, PatchConflictResult, PatchFailed, PatchUncertain } from './result.js';
import { holdTemp, sweepStaleTemps, type HeldTemp } from './temp-files.js';

/**
 * Observation points for tests that need a real I/O failure at a precise
 * moment (e.g. removing a temp file before its rename). Not a mock: the
 * filesystem stays real.
 */
export interface PublishHooks {
  /** After every temp file is written, before the re-check. */
  afterPrepare?(): void | Promise<void>;
  /** Before publishing step `index` (renames first, then unlinks) on workspace-relative `path`. */
  beforePublishStep?(index: number, path: string): void | Promise<void>;
}

const errCode = (err: unknown) => (err as NodeJS.ErrnoException).code ?? String(err);

async function writeTemp(path: string, bytes: Buffer, mode: number | undefined): Promise<void> {
  const fh = await open(path, 'wx', 0o666);
  try {
    await fh.writeFile(bytes);
    if (mode !== undefined) await fh.chmod(mode & 0o7777);
    await fh.sync();
  } finally {
    await fh.close();
  }
}

async function sameAsBefore(slot: Slot): Promise<{ same: boolean; now: DiskState | undefined }> {
  const target = slot.path.authority.target;
  if (!(await statChanged(target, slot.original))) return { same: true, now: undefined };
  const now = await loadDiskState(target).catch(() => undefined);
  if (!now) return { same: false, now };
  const o = slot.original;
  const same = now.kind === o.kind && (now.kind !== 'file' || (o.kind === 'file' && now.sha256 === o.sha256));
  return { same, now };
}

/** Paths whose on-disk state now differs from the pre-check state. */
async function observeChanged(slots: Slot[]): Promise<string[]> {
  const changed: string[] = [];
  for (const s of slots) if (!(await sameAsBefore(s)).same) changed.push(s.path.rel);
  return changed;
}

/**
 * Publishes a plan. Must run under the same mutation lock as its pre-check.
 *
 * @returns `applied` with the changes (and a fresh credential on the last
 *   change of each path that still exists), `failed` (`write_failed`, nothing
 *   changed), `conflict` (`StaleRead`/`ReadRequired`: a file changed or
 *   appeared since the pre-check, nothing changed) or `uncertain`.
 */
export async function publish(
  plan: PublishPlan,
  hooks: PublishHooks = {},
): Promise<PatchApplied | PatchFailed | PatchConflictResult | PatchUncertain> {
  const temps = new Temps();
  const notPrepared = await prepareTemps(plan, temps, hooks);
  if (notPrepared) return notPrepared;
  const conflict = await changedSincePrecheck(plan);
  if (conflict) {
    await temps.cleanup();
    return conflict;
  }
  const unsettled = await publishSteps(plan, temps, hooks);
  if (unsettled) return unsettled;
  temps.release();
  return { status: 'applied', changes: await withCredentials(plan) };
}

/** The temp files of one publish, as paths through their held parent directory descriptor, and their holds. */
class Temps {
  readonly paths = new Map<Slot, string>();
  readonly holds: HeldTemp[] = [];
  readonly createdDirs: CreatedDir[] = [];

  release(): void {
    for (const h of this.holds.splice(0)) h.release();
  }

  /** Removes the temp files left (never a published file), drops the holds and the directories created for them. */
  async cleanup(): Promise<void> {
    await this.removeFiles();
    this.paths.clear();
    this.release();
    removeCreatedDirs(this.createdDirs);
  }

  async removeFiles(): Promise<void> {
    for (const t of this.paths.values()) await unlink(t).catch(() => undefined);
  }
}

/** Writes every new content to a held temp file beside its target; `write_failed` (nothing changed) when one fails. */
async function prepareTemps(plan: PublishPlan, temps: Temps, hooks: PublishHooks): Promise<PatchFailed | undefined> {
  try {
    const swept = new Set<string>();
    for (const w of plan.writes) {
      const authority = w.slot.path.authority;
      authority.ensureParent(temps.createdDirs);
      const dir = authority.inParent('.');
      await sweepStaleTemps(dir, Date.now(), swept);
      const hold = await holdTemp(dir, authority.name);
      temps.holds.push(hold);
      const tmp = authority.inParent(hold.name);
      temps.paths.set(w.slot, tmp);
      await writeTemp(tmp, w.bytes, w.mode);
    }
    await hooks.afterPrepare?.();
    return undefined;
  } catch (err) {
    await temps.cleanup();
    return {
      status: 'failed',
      code: 'write_failed',
      message: `Writing failed before any file was changed (${errCode(err)}); nothing was changed.`,
    };
  }
}

/** The conflict for the first touched path whose disk state changed since the pre-check, if any. */
async function changedSincePrecheck(plan: PublishPlan): Promise<PatchConflictResult | undefined> {
  for (const s of plan.slots) {
    const { same, now } = await sameAsBefore(s);
    if (same) continue;
    const b = {
      resource: s.path.rel,
      operationDigest: s.firstDigest ?? '',
      currentDigest: now?.kind === 'file' ? now.sha256 : null,
    };
    const c = s.original.kind === 'file' ? staleRead(b, s.original.sha256) : readRequired(b, 'writes');
    return { status: 'conflict', ...c, others: [] };
  }
  return undefined;
}

/** Renames every temp file over its target, then removes deleted files; `uncertain` when a step fails midway. */
async function publishSteps(plan: PublishPlan, temps: Temps, hooks: PublishHooks): Promise<PatchUncertain | undefined> {
  const steps: Array<{ slot: Slot; run: () => Promise<void> }> = [
    ...plan.writes.map((w) => ({
      slot: w.slot,
      run: () => rename(temps.paths.get(w.slot)!, w.slot.path.authority.inParent(w.slot.path.authority.name)),
    })),
    ...plan.unlinks.map((slot) => ({ slot, run: () => unlink(slot.path.authority.target) })),
  ];
  for (let i = 0; i < steps.length; i++) {
    const step = steps[i]!;
    try {
      await hooks.beforePublishStep?.(i, step.slot.path.rel);
      await step.run();
      temps.paths.delete(step.slot);
    } catch (err) {
      await temps.removeFiles();
      temps.release();
      const changedPaths = await observeChanged(plan.slots);
      const cause = `${errCode(err)} while publishing ${step.slot.path.rel} (step ${i + 1} of ${steps.length})`;
      return {
        status: 'uncertain',
        uncertain: { changedPaths, cause },
        message: `apply_patch failed after it began changing files: ${cause}. Paths observed changed: ${changedPaths.length > 0 ? changedPaths.join(', ') : 'none'}. Read the affected files to see their actual state before doing anything else; do not resend the patch unchanged.`,
      };
    }
  }
  return undefined;
}

/** The plan's changes, with a fresh credential on the last change of each path that still exists. */
async function withCredentials(plan: PublishPlan): Promise<FileChange[]> {
  const changes = plan.changes.map((c) => ({ ...c }));
  for (const s of plan.slots) {
    if (!s.last || s.view.kind !== 'file') continue;
    const st = await stat(s.path.authority.target).catch(() => undefined);
    if (!st) continue;
    changes[s.last.change]!.credential = {
      path: s.path.rel,
      sha256: changes[s.last.change]!.newSha256!,
      bytes: s.view.bytes.length,
      mtimeMs: st.mtimeMs,
      operationDigest: s.last.digest,
    };
  }
  return changes;
}
