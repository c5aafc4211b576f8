import type { DoctorCheck } from './doctor-checks.js';
import type { Resolved, ResolvedDeployment } from './resolve.js';
import type { MachineIdentity } from './identity.js';

/** What `zuno doctor` shows: this process's resolved values, its machine, and the checks. */
export interface DoctorReport {
  version: string;
  machine: MachineIdentity;
  deployment: ResolvedDeployment | null;
  /** Set when resolving failed (a conflict or a bad file): nothing else could be checked. */
  error?: { code: string; message: string };
  checks: DoctorCheck[];
}

const MARK: Record<DoctorCheck['status'], string> = { ok: 'ok  ', warn: 'warn', fail: 'FAIL' };

function row(label: string, v: Resolved<string> | { value: string; source: string }): string {
  return `  ${label.padEnd(16)}${v.value}  (${v.source})`;
}

/**
 * The people-facing text of `zuno doctor` (issue 33): the resolved values
 * with where each came from, then one line per check with ok / warn / FAIL,
 * then a verdict line. Pure.
 */
export function renderDoctor(r: DoctorReport): string {
  const lines = [
    `Zuno ${r.version} — machine ${r.machine.machineName} (id ${r.machine.machine}), home ${r.machine.home}`,
  ];
  const d = r.deployment;
  if (d) {
    lines.push('', 'resolved');
    lines.push(
      `  ${'deployment file'.padEnd(16)}${d.file ? `${d.file.path}${d.file.shared ? ` (extends ${d.file.shared})` : ''}${d.file.name ? `, deployment ${d.file.name.value}` : ''}` : 'none (single-machine defaults)'}`,
    );
    lines.push(row('host id', d.host));
    lines.push(
      d.address
        ? row('temporal', d.address)
        : `  ${'temporal'.padEnd(16)}embedded dev server ${d.cfg.dev.ip}:${d.cfg.dev.port} (default)`,
    );
    lines.push(row('namespace', d.namespace), row('task queue', d.taskQueue));
    lines.push(row('projection', { value: d.projection.id, source: d.projection.source }));
  }
  if (r.error) lines.push('', `FAIL  ${r.error.code}: ${r.error.message}`);
  if (r.checks.length > 0) {
    lines.push('', 'checks');
    for (const c of r.checks) lines.push(`  ${MARK[c.status]}  ${c.id.replace(/_/g, ' ').padEnd(19)}${c.detail}`);
  }
  const failed = r.error ? 1 : r.checks.filter((c) => c.status === 'fail').length;
  lines.push('', failed === 0 ? 'this host is ready' : `this host is not ready: ${failed} check(s) failed`);
  return `${lines.join('\n')}\n`;
}

/** The `--json` shape: machine names, the resolved values with their sources, each check. Pure. */
export function doctorJson(r: DoctorReport): unknown {
  const d = r.deployment;
  return {
    ok: !r.error && r.checks.every((c) => c.status !== 'fail'),
    version: r.version,
    machine: r.machine,
    ...(d
      ? {
          resolved: {
            deploymentFile: d.file?.path ?? null,
            sharedFile: d.file?.shared ?? null,
            name: d.file?.name?.value ?? null,
            host: d.host,
            temporal: d.address ?? { value: null, source: 'embedded dev server' },
            namespace: d.namespace,
            taskQueue: d.taskQueue,
            projection: { value: d.projection.id, source: d.projection.source },
          },
        }
      : {}),
    ...(r.error ? { error: r.error } : {}),
    checks: r.checks,
  };
}
