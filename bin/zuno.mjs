#!/usr/bin/env node
// Launcher: loads the TypeScript sources through tsx (no build step) and runs the CLI.
import { register } from 'tsx/esm/api';

register();
const { main } = await import('../client/cli.ts');
const code = await main(process.argv);
process.exitCode = code;
// Let the event loop drain; force the exit if something keeps it alive.
setTimeout(() => process.exit(code), 2000).unref();
