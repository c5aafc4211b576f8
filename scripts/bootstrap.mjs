#!/usr/bin/env node
// One step that makes a fresh clone runnable, and is fast (~0.2 s) when
// nothing changed: (1) checks Node, (2) installs npm packages when
// node_modules is missing or package-lock.json changed, (3) installs the pinned
// tool binaries (Temporal CLI, rg) into .tools/, (4) makes sure the shell
// sandbox's bubblewrap is there (scripts/setup-sandbox.mjs: apt-get installs it
// as root, else it says what to install and carries on), (5) generates the
// Prisma clients, (6) compiles the sources to dist/ for a fast `zuno` start
// (scripts/build.mjs; a no-op when dist/ is fresh). Used by `npm run setup`,
// `demo`, `test` and `bench`. Plain Node, no dependencies.
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const run = (cmd, args) => execFileSync(cmd, args, { cwd: root, stdio: 'inherit' });

const [major, minor] = process.versions.node.split('.').map(Number);
if (major < 20 || (major === 20 && minor < 19)) {
  process.stderr.write(`zuno: Node ${process.versions.node} is too old; Zuno needs Node >= 20.19\n`);
  process.exit(1);
}

const lock = readFileSync(join(root, 'package-lock.json'));
const want = createHash('sha256')
  .update(lock)
  .update(readFileSync(join(root, 'package.json')))
  .digest('hex');
const stamp = join(root, 'node_modules', '.zuno-install-stamp');
if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) {
  process.stderr.write('zuno setup: installing npm packages (npm ci)\n');
  run('npm', ['ci', '--no-audit', '--no-fund', '--loglevel=error']);
  writeFileSync(stamp, want);
}
run(process.execPath, [join(root, 'scripts', 'setup-tools.mjs')]);
run(process.execPath, [join(root, 'scripts', 'setup-sandbox.mjs')]);
run(process.execPath, [join(root, 'scripts', 'prisma-generate.mjs')]);
// After prisma-generate: the generated clients are compiled too.
run(process.execPath, [join(root, 'scripts', 'build.mjs')]);
