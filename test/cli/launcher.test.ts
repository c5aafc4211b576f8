/**
 * bin/zuno.mjs: the compiled CLI (dist/) runs only when it is fresh; a source
 * newer than the build runs through tsx, so stale JavaScript never runs. And
 * `zuno --help` lists every command the program registers (the actions are
 * imported lazily, the commands are not).
 *
 * The freshness cases run on a temp copy of the installation (node_modules
 * linked) so editing a source never touches this checkout's dist/.
 */
import { spawnSync } from 'node:child_process';
import { cpSync, readdirSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../client/cli.js';
import { ROOT } from '../helpers/dev-server.js';
import { makeHome, runZuno, tempDir } from './helpers.js';

const COPIED = ['bin', 'scripts', 'core', 'workflows', 'activities', 'worker', 'client', 'prisma'];
const COPIED_FILES = ['package.json', 'tsconfig.json', 'temporal.yaml'];

/** A copy of the installation's sources (no dist/, no state) with this checkout's node_modules linked in. */
function copyInstallation(): string {
  const dir = tempDir('zuno-launcher-');
  for (const d of COPIED) cpSync(join(ROOT, d), join(dir, d), { recursive: true });
  for (const f of COPIED_FILES) cpSync(join(ROOT, f), join(dir, f));
  symlinkSync(join(ROOT, 'node_modules'), join(dir, 'node_modules'));
  return dir;
}

/** Runs `node <root>/bin/zuno.mjs …` with ZUNO_DEBUG_LAUNCHER=1 (stderr not a terminal). */
function launch(root: string, args: string[], env: Record<string, string> = {}) {
  const r = spawnSync(process.execPath, [join(root, 'bin', 'zuno.mjs'), ...args], {
    cwd: root,
    encoding: 'utf8',
    env: { PATH: process.env.PATH, HOME: process.env.HOME, ZUNO_HOME: root, ...env },
    timeout: 60_000,
  });
  return { code: r.status, stdout: r.stdout, stderr: r.stderr };
}

const debug = { ZUNO_DEBUG_LAUNCHER: '1' };

function build(root: string) {
  const r = spawnSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { cwd: root, encoding: 'utf8' });
  expect(r.status, r.stderr).toBe(0);
}

describe('launcher (bin/zuno.mjs)', () => {
  it('runs dist/ when fresh, the sources through tsx when one is newer or added, never stale code', () => {
    const root = copyInstallation();
    const never = launch(root, ['--version'], debug);
    expect(never.stderr).toMatch(/^zuno launcher: tsx \(dist\/ not built; checked in [\d.]+ ms\)\n$/);
    expect(never.stdout).toBe(`${JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')).version}\n`);

    build(root);
    const fresh = launch(root, ['--help'], debug);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(fresh.stderr).toMatch(/^zuno launcher: compiled \(dist\/ fresh; checked in [\d.]+ ms\)\n$/);
    // Same help from both paths.
    const forced = launch(root, ['--help'], { ...debug, ZUNO_LAUNCHER: 'tsx' });
    expect(forced.stderr).toMatch(/^zuno launcher: tsx \(forced by ZUNO_LAUNCHER=tsx, dist\/ fresh; /);
    expect(forced.stdout).toBe(fresh.stdout);

    // Edit a source after the build: the edited code runs, through tsx.
    const cli = join(root, 'client', 'cli.ts');
    const edited = readFileSync(cli, 'utf8').replace("'Zuno: a coding agent", "'EDITED Zuno: a coding agent");
    writeFileSync(cli, edited);
    const stale = launch(root, ['--help'], debug);
    expect(stale.code, stale.stderr).toBe(0);
    expect(stale.stderr).toMatch(/^zuno launcher: tsx \(dist\/ client\/cli\.ts changed; /);
    expect(stale.stdout).toContain('EDITED Zuno: a coding agent');
    // Without the debug variable the fallback says nothing when stderr is not a terminal.
    const quiet = launch(root, ['--help']);
    expect(quiet.stderr).toBe('');
    expect(quiet.stdout).toBe(stale.stdout);

    // The rebuild compiles the edit.
    build(root);
    const rebuilt = launch(root, ['--help'], debug);
    expect(rebuilt.stderr).toMatch(/^zuno launcher: compiled /);
    expect(rebuilt.stdout).toBe(stale.stdout);

    // A new source, a removed one, a changed build setting: each makes dist/ stale.
    writeFileSync(join(root, 'client', 'extra.ts'), 'export const extra = 1;\n');
    expect(launch(root, ['--version'], debug).stderr).toMatch(/tsx \(dist\/ client\/extra\.ts is new; /);
    build(root);
    rmSync(join(root, 'client', 'extra.ts'));
    expect(launch(root, ['--version'], debug).stderr).toMatch(/tsx \(dist\/ client\/extra\.ts was removed; /);
    build(root);
    writeFileSync(join(root, 'tsconfig.json'), `${readFileSync(join(root, 'tsconfig.json'), 'utf8')}\n`);
    expect(launch(root, ['--version'], debug).stderr).toMatch(/tsx \(dist\/ tsconfig\.json changed; /);
  });

  it('the compiled code finds the files beside the sources: tool descriptions, guard.mjs, migrations, package.json, the root', () => {
    const root = copyInstallation();
    build(root);
    const home = tempDir('zuno-launcher-home-');
    const version = launch(root, ['--version'], { ...debug, ZUNO_HOME: home });
    expect(version.stderr).toMatch(/^zuno launcher: compiled /);
    expect(version.stdout).toBe(`${JSON.parse(readFileSync(join(root, 'package.json'), 'utf8')).version}\n`);
    // dev status names the installation root (not dist/).
    const status = launch(root, ['dev', 'status'], { ZUNO_HOME: home });
    expect(status.stdout).toBe(`not running (state dir ${home}; installation ${root})\n`);

    const probe = `
      const dist = ${JSON.stringify(join(root, 'dist'))};
      const { INSTALL_ROOT } = await import(dist + '/activities/infra/install-root.js');
      const { toolImplementations } = await import(dist + '/activities/tools/index.js');
      const { GUARD_PATH } = await import(dist + '/activities/tools/shell/guard-run.js');
      const { localMigrations } = await import(dist + '/activities/projection/migrations.js');
      const { resolvePaths } = await import(dist + '/client/context.js');
      const { WORKFLOWS_PATH } = await import(dist + '/worker/workflow-bundle.js');
      console.log(JSON.stringify({
        INSTALL_ROOT,
        descriptions: Object.fromEntries(Object.values(toolImplementations).map((t) => [t.name, t.description])),
        GUARD_PATH,
        migrations: localMigrations('sqlite').map((m) => m.name),
        temporalYaml: resolvePaths().temporalYaml,
        WORKFLOWS_PATH,
      }));`;
    const r = spawnSync(process.execPath, ['--input-type=module', '-e', probe], {
      cwd: root,
      encoding: 'utf8',
      env: { PATH: process.env.PATH, ZUNO_HOME: home },
    });
    expect(r.status, r.stderr).toBe(0);
    const found = JSON.parse(r.stdout) as Record<string, unknown> & { descriptions: Record<string, string> };
    expect(found.INSTALL_ROOT).toBe(root);
    expect(Object.keys(found.descriptions).length).toBeGreaterThan(0);
    for (const [name, text] of Object.entries(found.descriptions)) {
      expect(text).toBe(readFileSync(join(root, 'activities', 'tools', `${name}.txt`), 'utf8').trim());
    }
    expect(found.GUARD_PATH).toBe(join(root, 'activities', 'tools', 'shell', 'guard.mjs'));
    expect(found.migrations).toEqual(
      readdirSync(join(root, 'prisma', 'sqlite', 'migrations'), { withFileTypes: true })
        .filter((d) => d.isDirectory())
        .map((d) => d.name)
        .sort(),
    );
    expect(found.temporalYaml).toBe(join(root, 'temporal.yaml'));
    // The Temporal worker bundles the workflow TypeScript sources, also from dist/.
    expect(found.WORKFLOWS_PATH).toBe(join(root, 'workflows', 'index.ts'));
  });
});

/** Every registered command, as `parent path → names of its subcommands`. */
function commandTree(cmd: Command, path: string[] = []): [string[], string[]][] {
  if (cmd.commands.length === 0) return [];
  return [
    [path, cmd.commands.map((c) => c.name())],
    ...cmd.commands.flatMap((c) => commandTree(c, [...path, c.name()])),
  ];
}

describe('zuno --help lists every command', () => {
  it('each command the program registers appears in its parent’s --help', async () => {
    const tree = commandTree(buildProgram(() => undefined));
    expect(tree.length).toBeGreaterThan(1);
    const { home } = makeHome();
    for (const [path, names] of tree) {
      const r = await runZuno([...path, '--help'], { home });
      expect(r.code, r.stderr).toBe(0);
      const commands = r.stdout.slice(r.stdout.indexOf('\nCommands:\n'));
      for (const name of names)
        expect(commands, `zuno ${path.join(' ')} --help`).toMatch(new RegExp(`^  ${name}\\b`, 'm'));
    }
  });
});
