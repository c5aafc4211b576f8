#!/usr/bin/env node
// Compiles the TypeScript sources (core/, workflows/, activities/, worker/,
// client/, local-provider/, prisma/generated/) to JavaScript in dist/, same layout
// (client/cli.ts → dist/client/cli.js), so bin/zuno.mjs can start without
// tsx. Run by scripts/bootstrap.mjs (npm run setup / test / demo / bench).
//
//   node scripts/build.mjs          # no-op (~10 ms) when dist/ is fresh
//   node scripts/build.mjs --force  # rebuild anyway
//
// Transpiles file by file with esbuild (no bundling, no type check: `npm run
// check` type-checks), the same transform and options tsx applies at runtime,
// so the compiled code behaves like the sources run through tsx. esbuild is
// the one tsx depends on, resolved through tsx (not a dependency of its own).
// Files read at runtime (tool descriptions, guard.mjs, migrations,
// package.json, temporal.yaml) are not copied: the code finds them in the
// source tree (activities/infra/install-root.ts).
//
// Output goes to a temporary folder that replaces dist/ at the end, and the
// freshness stamp (scripts/build-lib.mjs) records the inputs as they were
// BEFORE compiling: a source edited during the build leaves dist/ stale.
import { mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { DIST, STAMP, STAMP_VERSION, distFreshness, inputFingerprint, sourceFiles } from './build-lib.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');

if (!process.argv.includes('--force') && distFreshness(root).fresh) process.exit(0);

const started = Date.now();
const inputs = inputFingerprint(root);
const files = sourceFiles(root);
const esbuild = createRequire(createRequire(import.meta.url).resolve('tsx/package.json'))('esbuild');
const tmp = join(root, `${DIST}.${process.pid}.tmp`);
rmSync(tmp, { recursive: true, force: true });
mkdirSync(tmp, { recursive: true });
try {
  await esbuild.build({
    absWorkingDir: root,
    entryPoints: files,
    outdir: tmp,
    outbase: '.',
    bundle: false,
    platform: 'node',
    format: 'esm',
    target: 'node20.19',
    tsconfig: 'tsconfig.json',
    keepNames: true,
    sourcemap: 'linked',
    logLevel: 'warning',
  });
  writeFileSync(join(tmp, STAMP.slice(DIST.length + 1)), `${JSON.stringify({ version: STAMP_VERSION, inputs })}\n`);
  // Swap: a launcher starting meanwhile finds no stamp (or the old, stale
  // one) and runs the sources through tsx.
  const old = join(root, `${DIST}.${process.pid}.old`);
  rmSync(old, { recursive: true, force: true });
  try {
    renameSync(join(root, DIST), old);
  } catch (err) {
    if (err.code !== 'ENOENT') throw err;
  }
  try {
    renameSync(tmp, join(root, DIST));
  } catch (err) {
    // Another build (a concurrent setup) put its dist/ in place meanwhile:
    // keep that one, its stamp says whether it is fresh.
    if (err.code !== 'ENOTEMPTY' && err.code !== 'EEXIST') throw err;
    rmSync(tmp, { recursive: true, force: true });
  }
  rmSync(old, { recursive: true, force: true });
} catch (err) {
  rmSync(tmp, { recursive: true, force: true });
  process.stderr.write(`zuno build: ${err.message}\n`);
  process.exit(1);
}
process.stderr.write(`zuno build: compiled ${files.length} files to ${DIST}/ in ${Date.now() - started} ms\n`);
