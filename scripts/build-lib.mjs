// The compiled CLI's freshness check, shared by scripts/build.mjs (which
// writes the stamp) and bin/zuno.mjs (which checks it on every start, so it
// must stay cheap: no hashing, no imports beyond node:fs/node:path).
//
// dist/ is fresh when dist/.build-stamp.json lists exactly the inputs that
// exist now, each with the same mtime and size: the compiled sources (every
// .ts under SOURCE_DIRS) and the files that decide how they compile
// (BUILD_INPUTS). Any edit, added, removed or renamed source, or a changed
// build setting makes it stale; stale code never runs. Costs one readdir per
// folder and one stat per file (~220 files).
import { readFileSync, readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Folders compiled to dist/ (same relative layout). Tests, bench and scripts run through tsx. */
export const SOURCE_DIRS = [
  'core',
  'workflows',
  'activities',
  'worker',
  'client',
  'local-provider',
  'prisma/generated',
];
/** Files besides the sources whose change must rebuild dist/. */
export const BUILD_INPUTS = ['tsconfig.json', 'scripts/build.mjs', 'scripts/build-lib.mjs'];
/** Output folder (git-ignored) and the stamp the build writes last. */
export const DIST = 'dist';
export const STAMP = join(DIST, '.build-stamp.json');
/** Bump when the stamp's shape or the build's output layout changes. */
export const STAMP_VERSION = 1;

/** Relative paths (with '/') of the .ts sources to compile, sorted. */
export function sourceFiles(root) {
  const out = [];
  for (const dir of SOURCE_DIRS) {
    let entries;
    try {
      entries = readdirSync(join(root, dir), { recursive: true, withFileTypes: true });
    } catch (err) {
      if (err.code === 'ENOENT') continue; // e.g. prisma/generated before `prisma generate`
      throw err;
    }
    for (const e of entries) {
      if (e.isFile() && e.name.endsWith('.ts') && !e.name.endsWith('.d.ts')) {
        const rel = join(e.parentPath ?? e.path, e.name).slice(root.length + 1);
        out.push(rel.split('\\').join('/'));
      }
    }
  }
  return out.sort();
}

/** `{ relPath: [mtimeMs, size] }` of every input (sources and BUILD_INPUTS). */
export function inputFingerprint(root) {
  const fp = {};
  for (const rel of [...BUILD_INPUTS, ...sourceFiles(root)]) {
    const st = statSync(join(root, rel));
    fp[rel] = [st.mtimeMs, st.size];
  }
  return fp;
}

/**
 * Whether dist/ was built from the inputs as they are now.
 * @returns `{ fresh: true }` or `{ fresh: false, reason }` (a short phrase
 *   naming the first difference, e.g. `client/cli.ts changed`).
 */
export function distFreshness(root) {
  let stamp;
  try {
    stamp = JSON.parse(readFileSync(join(root, STAMP), 'utf8'));
  } catch {
    return { fresh: false, reason: 'not built' };
  }
  if (stamp?.version !== STAMP_VERSION || typeof stamp.inputs !== 'object') {
    return { fresh: false, reason: 'stamp from another build version' };
  }
  let now;
  try {
    now = inputFingerprint(root);
  } catch (err) {
    return { fresh: false, reason: `cannot stat the sources (${err.code ?? err.message})` };
  }
  const built = stamp.inputs;
  for (const [rel, [mtime, size]] of Object.entries(now)) {
    const b = built[rel];
    if (!b) return { fresh: false, reason: `${rel} is new` };
    if (b[0] !== mtime || b[1] !== size) return { fresh: false, reason: `${rel} changed` };
  }
  for (const rel of Object.keys(built)) if (!(rel in now)) return { fresh: false, reason: `${rel} was removed` };
  return { fresh: true };
}
