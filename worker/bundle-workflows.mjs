#!/usr/bin/env node
// Bundles Zuno's workflow code in a process of its own (issue 13 item 5).
// webpack and its loaders take ~190 MB of RSS that a long-running worker
// would keep for its whole life; run here, they leave with this process.
// Called by worker/workflow-bundle.ts on a cache miss, never by hand:
//
//   node worker/bundle-workflows.mjs <entry.ts> <output.js> [shared-module…]
//
// Each shared module is loaded once per worker and shared between its
// workflows (the bundler's preloadModules; see SHARED_MODULES in
// worker/workflow-bundle.ts).
//
// Writes the bundle to <output.js> and exits 0; on failure prints the
// bundler's error to stderr and exits 1. Warnings and errors only.
import { writeFileSync } from 'node:fs';
import { DefaultLogger, bundleWorkflowCode } from '@temporalio/worker';

const [entry, output, ...preloadModules] = process.argv.slice(2);
if (!entry || !output) {
  process.stderr.write('usage: node worker/bundle-workflows.mjs <entry.ts> <output.js> [shared-module…]\n');
  process.exit(2);
}
try {
  const bundle = await bundleWorkflowCode({ workflowsPath: entry, preloadModules, logger: new DefaultLogger('WARN') });
  writeFileSync(output, bundle.code);
} catch (err) {
  process.stderr.write(`${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
}
