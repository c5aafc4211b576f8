import type { GoalWatchSpec } from '../../core/goal/watch.js';
import type { NetworkSessionConfig } from '../../core/network.js';

/**
 * The parts of a release-watching Goal the watch tests share (issue 31): the
 * objective, loopback allowed, a watch for `dist-tags.latest = 2.0.0` at
 * `url`, and the criterion the watch owns.
 */
export function watchedGoal(
  url: string,
  everyMs: number,
  timeoutMs: number,
): {
  prompt: string;
  network: NetworkSessionConfig;
  watch: GoalWatchSpec;
  criteria: { text: string; needsEvidence: true; watch: true }[];
} {
  return {
    prompt: 'When pkg 2.0.0 is out, say so',
    network: { allowPrivate: ['127.0.0.1'] },
    watch: { url, until: { kind: 'json', path: 'dist-tags.latest', equals: '2.0.0' }, everyMs, timeoutMs },
    criteria: [{ text: 'pkg 2.0.0 is out', needsEvidence: true, watch: true }],
  };
}
