/**
 * `prepareCouncil` (issue 12 item 5): writes the reviewed change where the
 * read-only seats can `read` it — `git diff <range>` of the workspace into
 * `.zuno/council/<runId>/diff.patch` — and lists the files it touches.
 * Idempotent (the same range gives the same file). A range git refuses is a
 * non-retryable `council_diff_invalid`, naming git's own words.
 */
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { ApplicationFailure } from '@temporalio/activity';
import { execa } from 'execa';
import type { PrepareCouncilInput, PrepareCouncilResult } from '../../core/council/contract.js';
import { GIT_RANGE } from '../../core/tools/council-run.js';
import { ensureRealDir } from '../tools/state-dir.js';
import { ensureZunoGitignore } from '../tools/zuno-gitignore.js';

/** Longest diff written, in bytes (a bigger one is cut, with a last line saying so). */
const MAX_DIFF_BYTES = 2 * 1024 * 1024;

/** The workspace-relative directory of a Council's files. */
export function councilDir(runId: string): string {
  return join('.zuno', 'council', runId);
}

/**
 * Runs `git <args>` in `cwd` and returns stdout.
 * @throws ApplicationFailure `council_diff_invalid` (non-retryable) when git exits ≠ 0.
 */
async function git(cwd: string, args: string[]): Promise<string> {
  const r = await execa('git', args, { cwd, reject: false, stripFinalNewline: false, maxBuffer: 64 * 1024 * 1024 });
  if (r.exitCode !== 0) {
    const why = String(r.stderr || r.stdout || `exit ${r.exitCode}`)
      .trim()
      .split('\n')[0];
    throw ApplicationFailure.nonRetryable(`git ${args.join(' ')} failed: ${why}`, 'council_diff_invalid');
  }
  return String(r.stdout);
}

/** Builds the activity. */
export function createPrepareCouncil() {
  return async function prepareCouncil(input: PrepareCouncilInput): Promise<PrepareCouncilResult> {
    if (input.diffRange === undefined) return {};
    if (!GIT_RANGE.test(input.diffRange) || input.diffRange.startsWith('-'))
      throw ApplicationFailure.nonRetryable(`${input.diffRange} is not a git range`, 'council_diff_invalid');
    let diff = await git(input.workspace, ['diff', '--no-color', '--no-ext-diff', input.diffRange, '--']);
    const names = await git(input.workspace, ['diff', '--name-only', input.diffRange, '--']);
    if (Buffer.byteLength(diff) > MAX_DIFF_BYTES)
      diff = `${Buffer.from(diff).subarray(0, MAX_DIFF_BYTES).toString('utf8')}\n[diff cut at ${MAX_DIFF_BYTES} bytes]\n`;
    const rel = join(councilDir(input.runId), 'diff.patch');
    const zuno = join(input.workspace, '.zuno');
    await ensureRealDir(input.workspace, join(input.workspace, councilDir(input.runId)));
    ensureZunoGitignore(zuno);
    await writeFile(join(input.workspace, rel), diff);
    return {
      diffPath: rel,
      diffBytes: Buffer.byteLength(diff),
      files: names.split('\n').filter((l) => l.trim() !== ''),
    };
  };
}
