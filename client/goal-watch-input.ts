import { parseDuration } from '../core/goal/budgets.js';
import {
  type GoalWatchSpec,
  parseWatchCondition,
  WATCH_EVERY_DEFAULT_MS,
  WATCH_EVERY_MIN_MS,
  WATCH_TIMEOUT_DEFAULT_MS,
  WATCH_TIMEOUT_MAX_MS,
  watchConditionText,
} from '../core/goal/watch.js';
import { ZunoError } from '../core/errors.js';
import { urlShown } from '../core/url-text.js';
import { checkTarget } from '../activities/network/index.js';

/** The watch flags of `zuno goal start` (issue 31). */
export interface GoalWatchFlags {
  watch?: string;
  until?: string;
  every?: string;
  watchTimeout?: string;
}

/**
 * Checks `--watch URL --until COND [--every D] [--watch-timeout D]` (issue
 * 31; docs/web.md): the watch and the criterion it owns
 * (`<url> shows <condition>`, satisfied only by the watch's report). Pure.
 * @returns undefined without `--watch`.
 * @throws ZunoError `usage_error` for `--until`/`--every`/`--watch-timeout`
 *   without `--watch` or `--watch` without `--until`; `input_invalid`
 *   naming every malformed value.
 */
export function goalWatchInput(
  f: GoalWatchFlags,
): { watch: GoalWatchSpec; criterion: { text: string; needsEvidence: true; watch: true } } | undefined {
  if (f.watch === undefined) {
    const stray = (['until', 'every', 'watchTimeout'] as const).find((k) => f[k] !== undefined);
    if (stray)
      throw new ZunoError('usage_error', `--${stray === 'watchTimeout' ? 'watch-timeout' : stray} needs --watch URL`);
    return undefined;
  }
  if (f.until === undefined)
    throw new ZunoError(
      'usage_error',
      '--watch needs --until: status=200, regex:PATTERN, json:PATH or json:PATH=VALUE',
    );
  const problems: string[] = [];
  let url: URL | null = null;
  try {
    url = new URL(f.watch);
    if (url.protocol !== 'http:' && url.protocol !== 'https:')
      problems.push('--watch: only http and https URLs are watched');
    if (url.username || url.password)
      problems.push('--watch: a URL with credentials is refused (they would be kept in history)');
  } catch {
    problems.push(`--watch: "${f.watch.split(/[?#]/, 1)[0]!.slice(0, 80)}" is not a URL`);
  }
  const until = parseWatchCondition(f.until);
  if ('error' in until) problems.push(`--until: ${until.error}`);
  const everyMs = f.every === undefined ? WATCH_EVERY_DEFAULT_MS : parseDuration(f.every);
  if (everyMs === null || everyMs < WATCH_EVERY_MIN_MS)
    problems.push('--every: expected a duration of 1s or more, like 30s or 5m');
  const timeoutMs = f.watchTimeout === undefined ? WATCH_TIMEOUT_DEFAULT_MS : parseDuration(f.watchTimeout);
  if (timeoutMs === null || timeoutMs > WATCH_TIMEOUT_MAX_MS)
    problems.push('--watch-timeout: expected a duration up to 30d, like 6h or 2d');
  if (everyMs !== null && timeoutMs !== null && everyMs > timeoutMs)
    problems.push('--every: longer than --watch-timeout, so the watch would give up before its second check');
  if (problems.length > 0 || !url || 'error' in until || everyMs === null || timeoutMs === null)
    throw new ZunoError('input_invalid', problems.join('; '));
  return {
    watch: { url: url.href, until, everyMs, timeoutMs },
    criterion: { text: `${urlShown(url.href)} shows ${watchConditionText(until)}`, needsEvidence: true, watch: true },
  };
}

/**
 * Refuses, before anything starts, a watch whose host the guarded client
 * would refuse at every check (a private address `network.allow_private`
 * does not name); a host that does not resolve now is only noted (a later
 * check may reach it). Issue 31.
 * @throws ZunoError `network_refused` naming the address, its class and the fix.
 */
export async function refuseUnreachableWatch(
  watch: GoalWatchSpec,
  allowPrivate: readonly string[],
  note: ((line: string) => void) | null,
): Promise<void> {
  const url = new URL(watch.url);
  const found = await checkTarget(url, allowPrivate);
  if (found.ok === 'unknown')
    note?.(`note: ${url.hostname} does not resolve now (${found.reason}); the watch keeps checking`);
  else if (!found.ok)
    throw new ZunoError(
      'network_refused',
      `--watch ${urlShown(watch.url)}: ${url.hostname}${found.address === url.hostname.replace(/^\[|\]$/g, '') ? '' : ` resolves to ${found.address}, which`} is ${found.addressClass}, not a public address; allow it in zuno.json "network": {"allow_private": ["${url.hostname}"]} (docs/web.md)`,
    );
}
