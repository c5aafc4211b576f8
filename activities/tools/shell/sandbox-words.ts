/**
 * The sandbox facts of a shell result in plain words (SH10, TD9: the facts
 * stay on every result): a short tag for the receipt line and one line that
 * says what the command could reach, so a write refused by the sandbox
 * ("Read-only file system") is read as the sandbox's doing.
 */
import type { SandboxFacts } from '../../../core/sandbox.js';
import type { SandboxPlan } from './sandbox.js';

function network(f: SandboxFacts): string {
  return f.network === 'deny' ? 'network denied' : 'network allowed';
}

/** The receipt line's tag, e.g. `sandbox bubblewrap workspace-write, network allowed` or `unconfined (platform_native)`. */
export function sandboxTag(f: SandboxFacts): string {
  if (f.backend !== 'bubblewrap') return `unconfined (${f.backend})`;
  return `sandbox bubblewrap ${f.mode}, ${network(f)}`;
}

/** The `Sandbox: …` line of a result: what was writable and reachable, or why nothing was confined. */
export function sandboxLine(plan: Pick<SandboxPlan, 'facts' | 'writable' | 'missing' | 'unconfinedBecause'>): string {
  const f = plan.facts;
  if (f.backend === 'trusted_native')
    return 'Sandbox: none — zuno.json chose native execution (danger-full-access), so the command ran unconfined as your user (trusted_native).';
  if (f.backend === 'platform_native')
    return `Sandbox: none — no sandbox backend works on this host (${plan.unconfinedBecause ?? 'bubblewrap unavailable'}), so the command ran unconfined as your user (platform_native).`;
  const net =
    f.network === 'deny'
      ? 'Network denied: a private network namespace with only its own loopback, so other hosts and the services of this host are unreachable.'
      : 'Network allowed.';
  if (f.mode === 'read-only')
    return `Sandbox (bubblewrap, read-only): the whole filesystem is read-only except a private /tmp, so any other write fails with "Read-only file system". ${net}`;
  const missing = plan.missing.length
    ? ` (writable roots missing on this host, not bound: ${plan.missing.join(', ')})`
    : '';
  return `Sandbox (bubblewrap, workspace-write): writable only ${plan.writable.join(', ')}${missing}; the workspace's .zuno/ is read-only, and a write anywhere else fails with "Read-only file system". ${net}`;
}
