#!/usr/bin/env node
// Launcher. Runs the compiled CLI (dist/, built by scripts/build.mjs during
// `npm run setup`) when it is up to date with the sources; otherwise — never
// built, or a source changed since — runs the TypeScript sources through tsx
// (slower start, same behaviour). Stale JavaScript never runs.
//
// The fallback is silent when stderr is not a terminal (tests, scripts, pipes
// see the same output either way); in a terminal it prints one hint line.
// ZUNO_DEBUG_LAUNCHER=1 prints which path ran, and why, on stderr.
// ZUNO_LAUNCHER=tsx forces the fallback (bench/startup.ts measures both).
import { fileURLToPath } from 'node:url';
import { distFreshness } from '../scripts/build-lib.mjs';

const root = fileURLToPath(new URL('..', import.meta.url)).replace(/\/$/, '');
const checkStart = performance.now();
const check = distFreshness(root);
const checkMs = (performance.now() - checkStart).toFixed(1);
const forced = process.env.ZUNO_LAUNCHER === 'tsx';
const debug = process.env.ZUNO_DEBUG_LAUNCHER === '1';
let main;
if (check.fresh && !forced) {
  if (debug) process.stderr.write(`zuno launcher: compiled (dist/ fresh; checked in ${checkMs} ms)\n`);
  ({ main } = await import('../dist/client/cli.js'));
} else {
  const why = forced
    ? `forced by ZUNO_LAUNCHER=tsx${check.fresh ? ', dist/ fresh' : `, dist/ ${check.reason}`}`
    : `dist/ ${check.reason}`;
  if (debug) process.stderr.write(`zuno launcher: tsx (${why}; checked in ${checkMs} ms)\n`);
  else if (!forced && process.stderr.isTTY) {
    process.stderr.write(
      `zuno: running the TypeScript sources through tsx (${why}); \`npm run setup\` compiles them for a faster start\n`,
    );
  }
  const { register } = await import('tsx/esm/api');
  register();
  ({ main } = await import('../client/cli.ts'));
}
const code = await main(process.argv);
process.exitCode = code;
// Let the event loop drain; force the exit if something keeps it alive.
setTimeout(() => process.exit(code), 2000).unref();
