/**
 * The host facts of the `runtime.environment` segment (issue 32): OS, time
 * zone and date, the usual programs on PATH (once per process), and the
 * workspace's git branch and changed-file count (per call; the assembler
 * asks once per turn). A git that is slow or missing never fails a request:
 * the facts then say what is known.
 */
import { accessSync, constants } from 'node:fs';
import { platform, release } from 'node:os';
import { delimiter, join } from 'node:path';
import { execa } from 'execa';
import type { HostFacts } from '../../../core/prompt/environment.js';

/** Programs worth telling the model about when it can run commands (RT8 names `gh` and `rg`). */
const USUAL_PROGRAMS = ['git', 'rg', 'gh', 'node', 'npm', 'python3', 'go', 'cargo', 'make', 'docker', 'jq', 'curl'];

/** How long one git query may take, in ms (a huge repository's status is skipped, not waited for). */
const GIT_TIMEOUT_MS = 5_000;

let programs: string[] | undefined;

/** The {@link USUAL_PROGRAMS} found as executables on this process's PATH, in list order (cached). */
export function programsOnPath(path = process.env.PATH ?? ''): string[] {
  if (programs) return programs;
  const dirs = path.split(delimiter).filter(Boolean);
  programs = USUAL_PROGRAMS.filter((p) =>
    dirs.some((d) => {
      try {
        accessSync(join(d, p), constants.X_OK);
        return true;
      } catch {
        return false;
      }
    }),
  );
  return programs;
}

/** The git branch (`detached at <sha>` when detached; an unborn branch by its name) and the changed or untracked files of `workspace`; null outside a work tree. */
export async function gitFacts(workspace: string): Promise<HostFacts['git']> {
  const git = (args: string[]) =>
    execa('git', args, { cwd: workspace, reject: false, timeout: GIT_TIMEOUT_MS, stripFinalNewline: true });
  const inside = await git(['rev-parse', '--is-inside-work-tree']);
  if (inside.exitCode !== 0 || inside.stdout !== 'true') return null;
  const symbolic = await git(['symbolic-ref', '--short', '-q', 'HEAD']);
  const branch =
    symbolic.exitCode === 0 ? symbolic.stdout : `detached at ${(await git(['rev-parse', '--short', 'HEAD'])).stdout}`;
  return { branch, changedFiles: await changed(git) };
}

async function changed(git: (args: string[]) => Promise<{ exitCode?: number; stdout: string }>): Promise<number> {
  const r = await git(['status', '--porcelain', '--untracked-files=normal']);
  return r.exitCode === 0 ? r.stdout.split('\n').filter(Boolean).length : -1;
}

/** Every host fact of `workspace` at `nowMs`, the date in the worker's time zone. */
export async function hostFacts(workspace: string, nowMs: number): Promise<HostFacts> {
  const timeZone = Intl.DateTimeFormat().resolvedOptions().timeZone || 'UTC';
  const date = new Intl.DateTimeFormat('en-CA', { timeZone, year: 'numeric', month: '2-digit', day: '2-digit' }).format(
    new Date(nowMs),
  );
  return {
    os: `${platform()} ${release()}`,
    timeZone,
    date,
    programs: programsOnPath(),
    git: await gitFacts(workspace),
  };
}
