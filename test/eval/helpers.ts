/**
 * Helpers for the eval's tests (docs/eval.md): one task run through the real
 * CLI on the suite's Temporal dev server, driven by a recorded trajectory,
 * with the vendored tarballs (no registry), in a fresh home and workspace.
 */
import { expect, inject } from 'vitest';
import { VENDORED_PACKS } from '../../eval/paths.js';
import { runTask, type TaskOutcome } from '../../eval/run-task.js';
import { loadTask } from '../../eval/tasks/index.js';
import { makeHome, tempDir } from '../cli/helpers.js';

/** Variables of the developer's shell that would change what `zuno` does (as test/cli/helpers.ts scrubs them). */
const SCRUBBED = /^(ZUNO_|TEMPORAL_|DATABASE_URL$|OPENAI_API_KEY$|OPENROUTER_API_KEY$)/;

/** The environment of every eval command in a test: the suite's server, an in-process worker, the shared bundle. */
function testEnv(address: string): Record<string, string | undefined> {
  const env: Record<string, string | undefined> = {};
  for (const k of Object.keys(process.env)) if (SCRUBBED.test(k)) env[k] = undefined;
  return {
    ...env,
    TEMPORAL_ADDRESS: address,
    ZUNO_WORKER: 'in-process',
    ZUNO_BUNDLE_CACHE: process.env.ZUNO_BUNDLE_CACHE,
  };
}

/** Runs task `id` with its recorded `which` trajectory; its own home (unique task queue) and work folder. */
export function runTrajectory(id: string, which: 'pass' | 'fail'): Promise<TaskOutcome> {
  const address = inject('temporalAddress');
  const { home } = makeHome({ address });
  return runTask(loadTask(id), {
    packs: { vendored: VENDORED_PACKS },
    workRoot: tempDir(`zuno-eval-${id}-${which}-`),
    driver: { trajectory: which },
    z: { home, env: testEnv(address) },
  });
}

/** What each task's failing trajectory must be caught for: one pattern per reason the checker must give. */
export const FAIL_REASONS: Record<string, RegExp[]> = {
  'ms-plural': [/`node --test test\/` exits 1 .*a day and a half/, /no passing verification receipt/],
  'escape-html-quote': [/changed files outside the task: test\/escape\.test\.mjs/, /the bug is still in index\.js/],
  'is-number-blank': [/no passing verification receipt of \/node --test\/ after the last edit/],
  'fast-deep-equal-keys': [/the bug is still in es6\/index\.js/, /exits 1 .*es6\/index\.js/],
  'semver-gt-council': [/no valid seat report names functions\/gt\.js:2 \(named: functions\/gte\.js:2/],
  'kleur-delegate': [/the search was not delegated/],
  'picomatch-posix-plan': [/no read or grep of lib\/constants\.js/, /cited: lib\/parse\.js:20/],
  'bytes-goal': [/the goal ended paused/, /not satisfied by a receipt/, /the bug is still in index\.js/],
};

/**
 * Runs both trajectories of task `id` side by side and asserts the checker's
 * verdicts: the passing one passes with no reason, the failing one fails with
 * every reason {@link FAIL_REASONS} names (so it fails for the reason it was
 * recorded for). Returns both outcomes.
 */
export async function expectCheckerSeparates(id: string): Promise<[TaskOutcome, TaskOutcome]> {
  const [pass, fail] = await Promise.all([runTrajectory(id, 'pass'), runTrajectory(id, 'fail')]);
  expect({ pass: pass.pass, reasons: pass.reasons }, `${id} pass trajectory`).toEqual({ pass: true, reasons: [] });
  expect(pass.tokens ?? 0, `${id}: tokens from the stored record`).toBeGreaterThan(0);
  expect(pass.toolCalls ?? 0, `${id}: tool calls from the stored record`).toBeGreaterThan(0);
  expect(fail.pass, `${id} fail trajectory: ${fail.reasons.join(' | ')}`).toBe(false);
  for (const re of FAIL_REASONS[id]!) {
    expect(
      fail.reasons.some((r) => re.test(r)),
      `${id}: no reason matches ${re}: ${fail.reasons.join(' | ')}`,
    ).toBe(true);
  }
  return [pass, fail];
}
