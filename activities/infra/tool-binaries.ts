/**
 * Discovery of the pinned external binaries Zuno drives: ripgrep (SR1) and the
 * Temporal CLI / time-skipping test server (DESIGN.md §5).
 *
 * Pure filesystem checks (exists, regular file, executable). Nothing here runs
 * a binary or caches anything; version probing and caching live with the
 * caller (e.g. activities/tools/rg.ts for SR6).
 */
import { accessSync, constants, statSync } from 'node:fs';
import { delimiter, isAbsolute, join, resolve } from 'node:path';

/** Names of the binaries Zuno knows how to find. */
export type ToolBinaryName = 'rg' | 'temporal' | 'temporal-test-server';

/** Environment variable that overrides the location of each binary. */
export const TOOL_BINARY_ENV: Readonly<Record<ToolBinaryName, string>> = {
  rg: 'ZUNO_RG_BIN',
  temporal: 'ZUNO_TEMPORAL_BIN',
  'temporal-test-server': 'ZUNO_TEMPORAL_TEST_SERVER_BIN',
};

/** Where a candidate came from, in search order. */
export type BinarySource = 'explicit' | 'env' | 'project' | 'path';

/** One location looked at during discovery. */
export interface BinaryCandidate {
  source: BinarySource;
  /** Absolute path checked. */
  path: string;
  ok: boolean;
  /** Why the candidate was rejected (`missing`, `not a regular file`, `not executable`). */
  reason?: string;
}

/** Result of a detailed search: the chosen path (or null) and every location looked at. */
export interface BinarySearch {
  path: string | null;
  source: BinarySource | null;
  checked: BinaryCandidate[];
}

/** Options of {@link findBinary} / {@link findBinaryDetailed}. */
export interface FindBinaryOptions {
  /** A path from configuration. When set it is authoritative (see below). */
  explicit?: string;
  /** Root of the Zuno installation/checkout; `<projectRoot>/.tools/bin/<name>` is searched. */
  projectRoot: string;
  /** Environment to read the override variable and PATH from (default `process.env`). */
  env?: NodeJS.ProcessEnv;
}

function check(source: BinarySource, path: string): BinaryCandidate {
  try {
    const st = statSync(path); // follows symlinks: .tools/bin entries are links into the venv
    if (!st.isFile()) return { source, path, ok: false, reason: 'not a regular file' };
  } catch {
    return { source, path, ok: false, reason: 'missing' };
  }
  try {
    accessSync(path, constants.X_OK);
  } catch {
    return { source, path, ok: false, reason: 'not executable' };
  }
  return { source, path, ok: true };
}

/**
 * Finds a binary and reports every location considered.
 *
 * Order: (1) `opts.explicit`, (2) the env variable from {@link TOOL_BINARY_ENV}
 * (`ZUNO_RG_BIN`, `ZUNO_TEMPORAL_BIN`, `ZUNO_TEMPORAL_TEST_SERVER_BIN`),
 * (3) `<projectRoot>/.tools/bin/<name>` (installed by `node scripts/setup-tools.mjs`),
 * (4) each directory of `PATH`.
 *
 * A *configured* location (explicit value or env variable) is authoritative:
 * if it is set but not an executable regular file the search stops there and
 * returns `path: null`, so a wrong setting surfaces instead of silently
 * running some other binary. The project and PATH locations are discovered
 * and fall through. Relative configured paths resolve against `projectRoot`.
 * Never throws; does no I/O beyond `stat`/`access`.
 */
export function findBinaryDetailed(name: ToolBinaryName, opts: FindBinaryOptions): BinarySearch {
  const env = opts.env ?? process.env;
  const checked: BinaryCandidate[] = [];
  const configured: Array<[BinarySource, string | undefined]> = [
    ['explicit', opts.explicit],
    ['env', env[TOOL_BINARY_ENV[name]]],
  ];
  for (const [source, value] of configured) {
    if (value === undefined || value === '') continue;
    const c = check(source, isAbsolute(value) ? value : resolve(opts.projectRoot, value));
    checked.push(c);
    return { path: c.ok ? c.path : null, source: c.ok ? source : null, checked };
  }
  const project = check('project', join(opts.projectRoot, '.tools', 'bin', name));
  checked.push(project);
  if (project.ok) return { path: project.path, source: 'project', checked };
  for (const dir of (env.PATH ?? '').split(delimiter)) {
    if (dir === '' || !isAbsolute(dir)) continue; // relative PATH entries depend on cwd: skip them
    const c = check('path', join(dir, name));
    checked.push(c);
    if (c.ok) return { path: c.path, source: 'path', checked };
  }
  return { path: null, source: null, checked };
}

/**
 * Finds a binary: explicit config value, then env override, then
 * `<projectRoot>/.tools/bin/<name>`, then PATH (see {@link findBinaryDetailed}
 * for the exact rules). Returns the absolute path, or null when none is usable.
 */
export function findBinary(
  name: ToolBinaryName,
  opts: { explicit?: string; projectRoot: string; env?: NodeJS.ProcessEnv },
): string | null {
  return findBinaryDetailed(name, opts).path;
}
