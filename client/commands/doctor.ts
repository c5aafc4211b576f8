import { ZunoError } from '../../core/errors.js';
import { resolvePaths } from '../context.js';
import { doctorChecks } from '../deployment/doctor-checks.js';
import { doctorJson, renderDoctor, type DoctorReport } from '../deployment/doctor-view.js';
import { machineIdentity } from '../deployment/identity.js';
import { resolveDeployment, type ResolvedDeployment } from '../deployment/resolve.js';
import { zunoVersion } from '../version.js';

/**
 * `zuno doctor [--json]` (issue 33): prints what this process resolved — the
 * deployment file, host id, Temporal target, namespace, task queue and
 * projection, each with where it came from — and checks them: Temporal
 * answers, the projection is the one the deployment recorded, the projection
 * opens, the host id is bound to this machine and home, this home's host
 * worker runs on the same target. Starts nothing (not even the dev server).
 * Resolves to 0 when no check failed, 1 otherwise.
 */
export async function doctorCommand(opts: { json?: boolean }): Promise<number> {
  const paths = resolvePaths();
  const report: DoctorReport = {
    version: zunoVersion(),
    machine: machineIdentity(paths.home),
    deployment: null,
    checks: [],
  };
  let d: ResolvedDeployment | null = null;
  try {
    d = resolveDeployment(paths);
  } catch (err) {
    if (!(err instanceof ZunoError)) throw err;
    report.error = { code: err.code, message: err.message };
  }
  if (d) {
    report.deployment = d;
    report.checks = await doctorChecks(paths, d);
  }
  process.stdout.write(opts.json ? `${JSON.stringify(doctorJson(report), null, 2)}\n` : renderDoctor(report));
  return report.error || report.checks.some((c) => c.status === 'fail') ? 1 : 0;
}
