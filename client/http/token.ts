/**
 * The token of `zuno serve` (issue 29, SF6): 256 random bits, hex, in
 * `$ZUNO_HOME/http-token` with mode 0600. Created on first use; a token file
 * other users can read is refused, never used.
 */
import { randomBytes } from 'node:crypto';
import { chmodSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { ZunoError } from '../../core/errors.js';

/** The token file's name in Zuno's home. */
export const TOKEN_FILE = 'http-token';

/** The token's shape: 64 lowercase hex characters (256 bits). */
const TOKEN_SHAPE = /^[0-9a-f]{64}$/;

/** Where the token of `home` is kept. Pure. */
export function tokenPath(home: string): string {
  return join(home, TOKEN_FILE);
}

/**
 * The token of `home`, created (mode 0600, exclusive create) when the file
 * does not exist yet.
 * @throws ZunoError `config_invalid` when the file is readable by group or
 *   others, or does not hold a 64-hex-character token.
 */
export function loadOrCreateToken(home: string): string {
  const file = tokenPath(home);
  let mode: number;
  try {
    mode = statSync(file).mode;
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'ENOENT') throw err;
    const token = randomBytes(32).toString('hex');
    try {
      writeFileSync(file, `${token}\n`, { mode: 0o600, flag: 'wx' });
      chmodSync(file, 0o600);
      return token;
    } catch (e) {
      // Another `zuno serve` created it first: read theirs.
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      return loadOrCreateToken(home);
    }
  }
  if ((mode & 0o077) !== 0)
    throw new ZunoError(
      'config_invalid',
      `${file} can be read by other users (mode ${(mode & 0o777).toString(8)}): run chmod 600 ${file}, or delete it for a new token`,
    );
  const token = readFileSync(file, 'utf8').trim();
  if (!TOKEN_SHAPE.test(token))
    throw new ZunoError('config_invalid', `${file} does not hold a token (64 hex characters): delete it for a new one`);
  return token;
}
