/**
 * Release watching (issue 31 item 4; decided in docs/web.md): a Goal that
 * waits until a URL shows something — a package version on a registry, a
 * release on a forge, a status page turning green — before its first turn.
 * The wait is the `goal` workflow's timers with one short Safe fetch
 * (`watchProbe`) per check: nothing is in flight between checks and no
 * model token is spent. The first match (or the watch's timeout) wakes the
 * Goal once with a typed {@link WatchReport}, the authoritative evidence of
 * the criterion the watch owns. Pure: the condition is evaluated by the
 * probe activity with {@link evaluateWatch}, the same code the tests use.
 */

/** What a check looks for in the response. */
export type WatchCondition =
  /** The response status is exactly this (e.g. 200: the page exists). */
  | { kind: 'status'; status: number }
  /** The body matches this regular expression (JavaScript syntax, no flags); the value is the match. */
  | { kind: 'regex'; pattern: string }
  /**
   * The body is JSON with a value at `path` (dotted keys; `["…"]` for a key
   * with dots: `versions["2.0.0"]`), equal to `equals` when given; the value
   * is what the path holds (JSON text for a non-string).
   */
  | { kind: 'json'; path: string; equals?: string };

/** A watch as `zuno goal start --watch URL --until …` sets it. */
export interface GoalWatchSpec {
  /** http(s) URL, fetched through the guarded client (NW3) with the session's `network.allow_private`. */
  url: string;
  until: WatchCondition;
  /** Gap between checks, ms. */
  everyMs: number;
  /** Longest the watch waits from the Goal's start, ms; then it reports `timed_out`. */
  timeoutMs: number;
}

/** Input of the `watchProbe` activity: one check. */
export interface WatchProbeInput {
  goalId: string;
  url: string;
  until: WatchCondition;
  /** The 1-based number of this check. */
  attempt: number;
  /** The session's `network.allow_private`. */
  allowPrivate: string[];
}

/** What one check saw (small: no body). */
export interface WatchProbeResult {
  matched: boolean;
  /** The matched value (≤ {@link WATCH_VALUE_MAX} chars). */
  value?: string;
  /** HTTP status, when a response came. */
  status?: number;
  /** Why no response could be judged: a NetworkError code and phase, or `watch_bad_body`. */
  error?: { code: string; message: string };
  /** Wall-clock time of the fetch's end (activity time), epoch ms. */
  fetchedAtMs: number;
}

/** The report a watch wakes its Goal with: what the Goal's first turn reads and what its criterion cites. */
export interface WatchReport {
  /** `wr_<goalId>`: the receipt id the watch's criterion carries as evidence. */
  reportId: string;
  outcome: 'matched' | 'timed_out';
  url: string;
  /** The condition in words (`json dist-tags.latest = 2.0.0`). */
  until: string;
  value?: string;
  status?: number;
  /** When the deciding check fetched (matched) or the watch gave up (timed_out), epoch ms. */
  atMs: number;
  /** Checks made. */
  attempts: number;
  /** The last failure seen, when the last check failed. */
  lastError?: string;
}

/** A Goal's watch as its snapshot carries it. */
export interface GoalWatchState {
  spec: GoalWatchSpec;
  attempts: number;
  /** Failed checks in a row (they space the next check out). */
  failures: number;
  /** When the next check runs (workflow time), epoch ms; absent once reported. */
  nextCheckAtMs?: number;
  /** What the last check saw. */
  last?: { atMs: number; status?: number; error?: string };
  report?: WatchReport;
  /** Set once the Goal's session was started (after the report, or a person's resume of a timed-out watch). */
  sessionStarted?: boolean;
}

/** Shortest gap between checks, ms. */
export const WATCH_EVERY_MIN_MS = 1_000;
/** Default gap between checks, ms (5 min: 12 checks an hour). */
export const WATCH_EVERY_DEFAULT_MS = 5 * 60_000;
/** Default timeout of a watch, ms (24 h). */
export const WATCH_TIMEOUT_DEFAULT_MS = 24 * 3_600_000;
/** Longest timeout of a watch, ms (30 days). */
export const WATCH_TIMEOUT_MAX_MS = 30 * 24 * 3_600_000;
/** Longest matched value kept, chars. */
export const WATCH_VALUE_MAX = 200;
/** Longest gap after failed checks, ms (failures double the gap up to this, never below `every`). */
const WATCH_FAILURE_GAP_MAX_MS = 30 * 60_000;

/**
 * Parses `--until`: `status=200`, `regex:PATTERN`, `json:PATH` (present) or
 * `json:PATH=VALUE`. Pure.
 * @returns the condition, or `{ error }` naming what is wrong.
 */
export function parseWatchCondition(text: string): WatchCondition | { error: string } {
  const t = text.trim();
  const status = /^status\s*=\s*(\d{3})$/.exec(t);
  if (status) return { kind: 'status', status: Number(status[1]) };
  if (t.startsWith('regex:')) {
    const pattern = t.slice(6);
    if (pattern === '') return { error: 'regex: needs a pattern' };
    try {
      new RegExp(pattern);
    } catch (err) {
      return { error: `regex: ${(err as Error).message}` };
    }
    return { kind: 'regex', pattern };
  }
  if (t.startsWith('json:')) {
    const body = t.slice(5);
    const eq = indexOfEquals(body);
    const path = (eq < 0 ? body : body.slice(0, eq)).trim();
    if (jsonPathKeys(path) === null) return { error: `json: "${path}" is not a path like dist-tags.latest` };
    return eq < 0 ? { kind: 'json', path } : { kind: 'json', path, equals: body.slice(eq + 1).trim() };
  }
  return { error: 'expected status=CODE, regex:PATTERN, json:PATH or json:PATH=VALUE' };
}

/** The first `=` outside `["…"]`. */
function indexOfEquals(s: string): number {
  let inKey = false;
  for (let i = 0; i < s.length; i++) {
    if (s[i] === '[') inKey = true;
    else if (s[i] === ']') inKey = false;
    else if (s[i] === '=' && !inKey) return i;
  }
  return -1;
}

/** The keys of a JSON path (`a.b["c.d"].0`), or null when it is not one. Pure. */
export function jsonPathKeys(path: string): string[] | null {
  const keys: string[] = [];
  const re = /\.?([^.[\]"]+)|\["([^"]*)"\]|\[(\d+)\]/y;
  let at = 0;
  while (at < path.length) {
    re.lastIndex = at;
    const m = re.exec(path);
    if (!m || (m[1] !== undefined && at > 0 && path[at] !== '.')) return null;
    keys.push(m[1] ?? m[2] ?? m[3]!);
    at = re.lastIndex;
  }
  return keys.length > 0 ? keys : null;
}

/** The condition in words, e.g. `json dist-tags.latest = 2.0.0`. Pure. */
export function watchConditionText(c: WatchCondition): string {
  switch (c.kind) {
    case 'status':
      return `status ${c.status}`;
    case 'regex':
      return `regex /${c.pattern}/`;
    case 'json':
      return c.equals === undefined ? `json ${c.path} present` : `json ${c.path} = ${c.equals}`;
  }
}

/**
 * Judges one response against the condition. A non-2xx status matches only
 * a `status` condition naming it. Pure.
 * @param body the response body as text (UTF-8).
 */
export function evaluateWatch(
  c: WatchCondition,
  res: { status: number; body: string },
): { matched: boolean; value?: string; error?: string } {
  if (c.kind === 'status')
    return res.status === c.status ? { matched: true, value: String(res.status) } : { matched: false };
  if (res.status < 200 || res.status > 299) return { matched: false };
  if (c.kind === 'regex') {
    const m = new RegExp(c.pattern).exec(res.body);
    return m ? { matched: true, value: m[0].slice(0, WATCH_VALUE_MAX) } : { matched: false };
  }
  let doc: unknown;
  try {
    doc = JSON.parse(res.body);
  } catch {
    return { matched: false, error: 'the body is not JSON' };
  }
  let v: unknown = doc;
  for (const k of jsonPathKeys(c.path) ?? []) {
    if (v === null || typeof v !== 'object' || !Object.prototype.hasOwnProperty.call(v, k)) return { matched: false };
    v = (v as Record<string, unknown>)[k];
  }
  const text = (typeof v === 'string' ? v : JSON.stringify(v)).slice(0, WATCH_VALUE_MAX);
  if (c.equals !== undefined && text !== c.equals) return { matched: false, value: text };
  return { matched: true, value: text };
}

/**
 * The gap before the next check, ms: `everyMs`, doubled per failed check in
 * a row up to 30 min (never below `everyMs`). Pure.
 */
export function watchGapMs(everyMs: number, failures: number): number {
  if (failures <= 0) return everyMs;
  return Math.max(everyMs, Math.min(WATCH_FAILURE_GAP_MAX_MS, everyMs * 2 ** Math.min(failures, 10)));
}

/** The report's words for the Goal's first turn (what the model reads beside the objective). Pure. */
export function watchReportText(r: WatchReport): string {
  const at = new Date(r.atMs).toISOString();
  const head =
    r.outcome === 'matched'
      ? `The release watch matched (report ${r.reportId}): ${r.url} showed ${r.until}` +
        (r.value !== undefined ? ` (value: ${r.value})` : '') +
        ` at ${at}, after ${r.attempts} check${r.attempts === 1 ? '' : 's'}.`
      : `The release watch timed out (report ${r.reportId}): ${r.url} did not show ${r.until} by ${at} ` +
        `(${r.attempts} check${r.attempts === 1 ? '' : 's'}${r.lastError ? `, last: ${r.lastError}` : ''}).`;
  return `${head} The criterion the watch owns is ${r.outcome === 'matched' ? 'satisfied by this report' : 'not satisfied'}.`;
}
