/**
 * Lazy, cached discovery of ripgrep for the glob and grep tools (SR1, SR6).
 *
 * Nothing runs at import: the first glob/grep call probes `rg --version`.
 * Success is cached for the process lifetime; a typed failure (`rg_missing`,
 * `rg_too_old`) for 5 s, so a user who installs rg mid-session gets working
 * tools without restarting while a model hammering grep on a machine without
 * rg does not spawn a probe per call. Concurrent first callers share one probe.
 * A probe that crashes (killed by a signal, non-zero exit, timeout, or an
 * unexpected exception in our own code) is reported as `rg_probe_failed` and
 * is NOT cached, so it never makes rg permanently unavailable.
 */
import { execFile } from 'node:child_process';
import { ZunoError } from '../../core/errors.js';
import { INSTALL_ROOT } from '../infra/install-root.js';
import { findBinaryDetailed, type BinarySource } from '../infra/tool-binaries.js';

/** Minimum supported ripgrep major version (SR1). */
export const MIN_RG_MAJOR = 14;
/** How long a typed discovery failure is cached, in ms (SR6). */
export const RG_FAILURE_TTL_MS = 5_000;
/** How long `rg --version` may take before the probe counts as crashed, in ms. */
export const RG_PROBE_TIMEOUT_MS = 10_000;

const INSTALL_HINT =
  'Install the pinned ripgrep with `node scripts/setup-tools.mjs` (it lands in .tools/bin/rg), ' +
  'or point ZUNO_RG_BIN at a ripgrep 14+ binary.';

/** Root of this Zuno checkout (where `.tools/bin/rg` lives). Computed, not probed. */
export const ZUNO_PROJECT_ROOT = INSTALL_ROOT;

/** A usable ripgrep. */
export interface RgInfo {
  /** Absolute path of the binary. */
  path: string;
  /** Full version, e.g. `14.1.0`. */
  version: string;
  major: number;
  /** Where discovery found it. */
  source: BinarySource;
}

/** Options of {@link createRgLocator}. All optional; tests inject `bin`, `failureTtlMs` and `now`. */
export interface RgLocatorOptions {
  /**
   * Exact path to use (configuration value or a test's fake binary). When set
   * it is authoritative: a missing file there is `rg_missing`, never a
   * fallback to another rg.
   */
  bin?: string;
  /** Where `.tools/bin/rg` is looked for (default {@link ZUNO_PROJECT_ROOT}). */
  projectRoot?: string;
  /** Environment for `ZUNO_RG_BIN` and `PATH` (default `process.env`, read at probe time). */
  env?: NodeJS.ProcessEnv;
  /** Failure cache TTL in ms (default {@link RG_FAILURE_TTL_MS}). */
  failureTtlMs?: number;
  /** Clock in ms (default `Date.now`). */
  now?: () => number;
  /** Probe timeout in ms (default {@link RG_PROBE_TIMEOUT_MS}). */
  probeTimeoutMs?: number;
}

/** A discovery cache for one rg configuration. */
export interface RgLocator {
  /**
   * Returns the usable rg, probing at most once concurrently.
   * @throws ZunoError `rg_missing` (none found / not ripgrep), `rg_too_old`
   *   (major < 14) — both cached for the failure TTL — or `rg_probe_failed`
   *   (the probe crashed; not cached).
   */
  resolve(): Promise<RgInfo>;
  /** Forgets any cached success or failure (an in-flight probe still settles for its callers). */
  reset(): void;
  /** Number of probes started so far (diagnostics/tests). */
  readonly probes: number;
}

interface ProbeOutput {
  stdout: string;
  error: (Error & { code?: unknown; signal?: unknown; killed?: boolean }) | null;
}

function runVersion(path: string, timeoutMs: number): Promise<ProbeOutput> {
  return new Promise((res) => {
    execFile(
      path,
      ['--version'],
      { timeout: timeoutMs, maxBuffer: 64 * 1024, encoding: 'utf8', env: { ...process.env, RIPGREP_CONFIG_PATH: '' } },
      (error, stdout) => res({ stdout: String(stdout), error }),
    );
  });
}

/** Parses `ripgrep X.Y.Z` from `rg --version` output; null if it is not ripgrep. */
export function parseRgVersion(stdout: string): { version: string; major: number } | null {
  const m = /^ripgrep (\d+)\.(\d+)\.(\d+)\S*/m.exec(stdout);
  if (!m) return null;
  return { version: `${m[1]}.${m[2]}.${m[3]}`, major: Number(m[1]) };
}

async function probe(opts: RgLocatorOptions): Promise<RgInfo> {
  const projectRoot = opts.projectRoot ?? ZUNO_PROJECT_ROOT;
  const search = findBinaryDetailed('rg', {
    ...(opts.bin !== undefined ? { explicit: opts.bin } : {}),
    projectRoot,
    env: opts.env ?? process.env,
  });
  if (search.path === null || search.source === null) {
    const looked = search.checked.map((c) => `${c.path} (${c.source}: ${c.reason ?? 'ok'})`);
    const where = looked.length > 0 ? looked.join('; ') : 'nothing to check (PATH is empty)';
    throw new ZunoError(
      'rg_missing',
      `ripgrep (rg) was not found; glob and grep need ripgrep ${MIN_RG_MAJOR} or newer. Looked at: ${where}. ${INSTALL_HINT}`,
      { checked: search.checked.map((c) => ({ source: c.source, path: c.path, reason: c.reason ?? 'ok' })) },
    );
  }
  const path = search.path;
  const { stdout, error } = await runVersion(path, opts.probeTimeoutMs ?? RG_PROBE_TIMEOUT_MS);
  if (error) {
    if (error.code === 'ENOENT') {
      throw new ZunoError('rg_missing', `ripgrep at ${path} disappeared before it could run. ${INSTALL_HINT}`, {
        path,
      });
    }
    const how = error.signal
      ? `was killed by ${String(error.signal)}${error.killed ? ' (timeout)' : ''}`
      : `failed (${typeof error.code === 'number' ? `exit ${error.code}` : String(error.code ?? error.message)})`;
    throw new ZunoError('rg_probe_failed', `\`${path} --version\` ${how}; will probe again on the next call.`, {
      path,
    });
  }
  const parsed = parseRgVersion(stdout);
  if (!parsed) {
    const first = stdout.split('\n', 1)[0]?.slice(0, 200) ?? '';
    throw new ZunoError(
      'rg_missing',
      `${path} is not ripgrep (\`--version\` printed ${JSON.stringify(first)}). ${INSTALL_HINT}`,
      { path },
    );
  }
  if (parsed.major < MIN_RG_MAJOR) {
    throw new ZunoError(
      'rg_too_old',
      `ripgrep at ${path} is version ${parsed.version}; glob and grep need ripgrep ${MIN_RG_MAJOR} or newer. ${INSTALL_HINT}`,
      { path, version: parsed.version },
    );
  }
  return { path, version: parsed.version, major: parsed.major, source: search.source };
}

/**
 * Creates an independent rg discovery cache (SR6). The probe is lazy: nothing
 * happens until `resolve()` is first called.
 */
export function createRgLocator(opts: RgLocatorOptions = {}): RgLocator {
  const ttl = opts.failureTtlMs ?? RG_FAILURE_TTL_MS;
  const now = opts.now ?? Date.now;
  let success: RgInfo | undefined;
  let failure: { error: ZunoError; at: number } | undefined;
  let inflight: Promise<RgInfo> | undefined;
  let probes = 0;
  let epoch = 0;

  return {
    get probes() {
      return probes;
    },
    reset() {
      success = undefined;
      failure = undefined;
      inflight = undefined;
      epoch++;
    },
    resolve() {
      if (success) return Promise.resolve(success);
      if (failure && now() - failure.at < ttl) return Promise.reject(failure.error);
      if (inflight) return inflight;
      probes++;
      const myEpoch = epoch;
      const p = (async () => probe(opts))().then(
        (info) => {
          if (myEpoch === epoch) {
            success = info;
            failure = undefined;
          }
          return info;
        },
        (err: unknown) => {
          const typed =
            err instanceof ZunoError
              ? err
              : new ZunoError(
                  'rg_probe_failed',
                  `ripgrep discovery crashed: ${String(err)}; will probe again on the next call.`,
                );
          if (myEpoch === epoch && (typed.code === 'rg_missing' || typed.code === 'rg_too_old')) {
            failure = { error: typed, at: now() };
          }
          throw typed;
        },
      );
      inflight = p;
      const clear = () => {
        if (inflight === p) inflight = undefined;
      };
      p.then(clear, clear);
      return p;
    },
  };
}

let defaultLocator: RgLocator | undefined;

/** The process-wide locator (created on first use; configured from env/project/PATH). */
export function defaultRgLocator(): RgLocator {
  defaultLocator ??= createRgLocator();
  return defaultLocator;
}

/**
 * Resolves rg with the process-wide cache. Same errors as {@link RgLocator.resolve}.
 */
export function resolveRg(): Promise<RgInfo> {
  return defaultRgLocator().resolve();
}

/**
 * Replaces the process-wide locator (e.g. with a configured explicit path), or
 * drops it when called without options so the next call rediscovers.
 */
export function configureDefaultRg(opts?: RgLocatorOptions): void {
  defaultLocator = opts ? createRgLocator(opts) : undefined;
}
