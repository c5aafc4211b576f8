/**
 * What the deployment's checks cost (issue 33; prints figures, asserts nothing):
 * - resolving the deployment (home file + the shared file it extends +
 *   temporal.yaml), per call — `connectTemporal`, `openStore` and the
 *   service target do it once each per command; `hostId()` resolves only the host;
 * - a worker's host claim (and each renewal) on the home's SQLite projection;
 * - the build id of the workflow code (hashing workflows/ and core/), once per worker start.
 *
 *   npx tsx bench/deployment.ts --calls 2000
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { openProjectionStore } from '../activities/projection/index.js';
import { resolveDeployment, resolveHost } from '../client/deployment/resolve.js';
import { claimHost } from '../client/deployment/host-claim.js';
import { workflowBuildId } from '../worker/build-id.js';
import { badArgument, benchFlags } from './worker-procs.js';

const HELP = `usage: npx tsx bench/deployment.ts [options]

  --calls <N>   resolutions and claims measured (default 2000)
  -h, --help    show this help`;

const flags = benchFlags(HELP, { calls: { type: 'string', default: '2000' } });
const calls = Number(flags.calls);
if (!Number.isInteger(calls) || calls < 1) badArgument(`--calls must be a positive integer (got ${flags.calls})`);

const root = mkdtempSync(join(tmpdir(), 'zuno-bench-dep-'));
const home = join(root, 'home');
mkdirSync(home);
writeFileSync(
  join(root, 'shared.yaml'),
  'name: bench\ntemporal:\n  address: 127.0.0.1:7233\n  taskQueue: bench\nprojection: postgresql://u:${ZUNO_BENCH_PW}@db/zuno\n',
);
writeFileSync(join(home, 'deployment.yaml'), 'extends: ../shared.yaml\nhost: host-a\n');
process.env.ZUNO_BENCH_PW = 'pw';
const paths = { home, temporalYaml: join(import.meta.dirname, '..', 'temporal.yaml') };

/** Mean ms per call of `fn` over `n` calls, after 50 warm-up calls. */
async function perCall(n: number, fn: () => unknown): Promise<number> {
  for (let i = 0; i < 50; i++) await fn();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return (performance.now() - t0) / n;
}

const resolveMs = await perCall(calls, () => resolveDeployment(paths));
const hostMs = await perCall(calls, () => resolveHost(home));
console.log(`resolving the deployment: ${resolveMs.toFixed(3)} ms per call; the host id alone ${hostMs.toFixed(3)} ms`);

const store = await openProjectionStore({ zunoDir: home });
const claimMs = await perCall(calls, () => claimHost({ store, home, host: 'host-a', nowMs: Date.now() }));
console.log(`a host claim or renewal on SQLite: ${claimMs.toFixed(3)} ms`);
await store.close();

const t0 = performance.now();
const id = workflowBuildId();
console.log(`build id ${id}: ${(performance.now() - t0).toFixed(1)} ms (once per worker start)`);
rmSync(root, { recursive: true, force: true });
