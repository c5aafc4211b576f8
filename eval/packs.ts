/**
 * The packages the tasks pin: `npm pack <name>@<version>` into the eval's
 * cache (or a vendored folder such as eval/packs/), each tarball verified
 * against the task's sha512 integrity before it is used.
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { TaskDef } from './types.js';

const run = promisify(execFile);

/** The file name `npm pack` gives a tarball of an unscoped package. */
export function tarballName(pkg: TaskDef['package']): string {
  return `${pkg.name}-${pkg.version}.tgz`;
}

/** The `sha512-<base64>` integrity of a file's bytes (the npm registry's form). */
export function integrityOf(file: string): string {
  return `sha512-${createHash('sha512').update(readFileSync(file)).digest('base64')}`;
}

/** Where the tarballs come from: a folder that already holds them (no network), or a cache `npm pack` fills. */
export type PackSource = { vendored: string } | { cache: string };

/**
 * The verified tarball of `pkg`: from the vendored folder, or the cache
 * (fetched there with `npm pack` when missing). @throws when the tarball is
 * missing from a vendored folder, `npm pack` fails, or its integrity is not
 * the pinned one.
 */
export async function packageTarball(pkg: TaskDef['package'], source: PackSource): Promise<string> {
  const dir = 'vendored' in source ? source.vendored : source.cache;
  const file = join(dir, tarballName(pkg));
  if (!existsSync(file)) {
    if ('vendored' in source) throw new Error(`${file} is missing (vendored packages)`);
    mkdirSync(dir, { recursive: true });
    await run('npm', ['pack', `${pkg.name}@${pkg.version}`, '--pack-destination', dir, '--silent'], {
      cwd: dir,
    });
    if (!existsSync(file)) throw new Error(`npm pack ${pkg.name}@${pkg.version} left no ${file}`);
  }
  const got = integrityOf(file);
  if (got !== pkg.integrity) {
    throw new Error(`${file}: integrity ${got} is not the pinned ${pkg.integrity}`);
  }
  return file;
}
