import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { loadZunoConfig } from '../../client/zuno-config.js';

/** Writes `zuno.json` with `config` into a fresh directory and loads it. */
export function loadConfig(config: unknown) {
  const dir = mkdtempSync(join(tmpdir(), 'zuno-cfg-'));
  writeFileSync(join(dir, 'zuno.json'), JSON.stringify(config));
  return loadZunoConfig(dir);
}

/** The error a failing call throws; fails the test when it does not throw. */
export function errorOf(fn: () => unknown): { code: string; message: string } {
  try {
    fn();
  } catch (err) {
    return err as { code: string; message: string };
  }
  throw new Error('expected an error');
}
