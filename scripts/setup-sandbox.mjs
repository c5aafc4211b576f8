#!/usr/bin/env node
// The shell sandbox's helper (SH10, docs/sandbox.md): makes sure Linux
// bubblewrap (`bwrap`) is installed and works. Missing and root with apt-get:
// `apt-get install -y bubblewrap`. Otherwise it says exactly what to install
// and carries on (without it, shell commands run unconfined by default and an
// explicit `sandbox` in zuno.json is refused). Fast when bwrap is there (one
// `bwrap --ro-bind / / true`, a few ms). Plain Node, no dependencies.
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { delimiter, join } from 'node:path';

const say = (line) => process.stderr.write(`zuno setup: ${line}\n`);
const INSTALL =
  'install the bubblewrap package (Debian/Ubuntu: sudo apt-get install bubblewrap; Fedora: sudo dnf install bubblewrap)';

function which(name) {
  for (const dir of (process.env.PATH ?? '').split(delimiter)) {
    if (dir && existsSync(join(dir, name))) return join(dir, name);
  }
  return undefined;
}

function works(bwrap) {
  const r = spawnSync(bwrap, ['--ro-bind', '/', '/', '--dev', '/dev', '--proc', '/proc', 'true'], {
    stdio: ['ignore', 'ignore', 'pipe'],
    timeout: 10_000,
  });
  return r.status === 0 ? null : (r.stderr?.toString().trim().split('\n')[0] ?? `exit ${r.status}`);
}

function aptInstall() {
  const apt = { stdio: ['ignore', 'ignore', 'inherit'], env: { ...process.env, DEBIAN_FRONTEND: 'noninteractive' } };
  try {
    execFileSync('apt-get', ['install', '-y', '-q', 'bubblewrap'], apt);
  } catch {
    // The package lists may be missing or stale (a fresh container): refresh them once.
    execFileSync('apt-get', ['update', '-q'], apt);
    execFileSync('apt-get', ['install', '-y', '-q', 'bubblewrap'], apt);
  }
}

if (process.platform === 'linux') {
  let bwrap = process.env.ZUNO_BWRAP || which('bwrap');
  if (!bwrap && process.getuid?.() === 0 && which('apt-get')) {
    say('installing bubblewrap for the shell sandbox (apt-get install bubblewrap)');
    try {
      aptInstall();
    } catch (err) {
      say(`apt-get could not install bubblewrap (${err.message.split('\n')[0]})`);
    }
    bwrap = which('bwrap');
  }
  if (!bwrap) {
    say(`bubblewrap (bwrap) is not installed: shell commands will run unconfined; ${INSTALL}`);
  } else {
    const failed = works(bwrap);
    if (failed)
      say(
        `bubblewrap at ${bwrap} does not work here (${failed}): shell commands will run unconfined; ` +
          'it needs unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1) or root',
      );
  }
}
