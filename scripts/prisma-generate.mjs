#!/usr/bin/env node
// Generates the Prisma clients of both backends from prisma/models.prisma into
// prisma/generated/{sqlite,postgres}/client (git-ignored).
//
//   node scripts/prisma-generate.mjs          # no-op (~50 ms) when up to date
//   node scripts/prisma-generate.mjs --force  # regenerate anyway
//
// Idempotent: a stamp file records the hash of the inputs (models, the
// derivation in prisma-lib.mjs, the Prisma version); when it matches and both
// clients exist nothing runs. Plain Node, no dependencies beyond the installed
// packages; works offline (wasm engines only).
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { backendGenDir, backends, generatedDir, inputsHash, runPrisma, writeBackendFiles } from './prisma-lib.mjs';

const stamp = join(generatedDir, '.stamp');
const hash = inputsHash();

function upToDate() {
  if (!existsSync(stamp) || readFileSync(stamp, 'utf8') !== hash) return false;
  return backends.every((b) => existsSync(join(backendGenDir(b), 'client', 'client.ts')));
}

if (!process.argv.includes('--force') && upToDate()) process.exit(0);

try {
  await Promise.all(
    backends.map((b) => {
      const cfg = writeBackendFiles(b);
      return runPrisma(['generate', '--config', cfg]);
    }),
  );
} catch (err) {
  process.stderr.write(`zuno prisma-generate: ${err.message}\n`);
  process.exit(1);
}
writeFileSync(stamp, hash);
process.stderr.write('zuno prisma-generate: clients ready in prisma/generated/\n');
