/**
 * Choosing how one shell run is confined (SH10, SB1, PM1): the session's
 * {@link SandboxPolicy} plus what this host offers give the backend, the
 * bubblewrap options and the receipt's sandbox facts — or a refusal before
 * anything runs. Never silently unconfined when confinement was asked for.
 */
import { dirname } from 'node:path';
import { DEFAULT_SANDBOX_POLICY, type SandboxFacts, type SandboxPolicy } from '../../../core/sandbox.js';
import { GUARD_PATH } from './guard-run.js';
import { BWRAP_INSTALL_HINT, discoverBubblewrap } from './sandbox-probe.js';
import { sandboxMounts } from './sandbox-mounts.js';
import type { ErrorCode } from '../../../core/error-codes.js';

/** Stable error code of a call refused because the required sandbox cannot be had. */
export const SANDBOX_UNAVAILABLE = 'sandbox_unavailable' satisfies ErrorCode;

/** How one run is confined. */
export interface SandboxPlan {
  facts: SandboxFacts;
  /** With `bubblewrap`: the helper and its options (the guard runs inside it). */
  bwrap?: { file: string; args: string[] };
  /** Real paths bound writable (`workspace-write` under bubblewrap). */
  writable: string[];
  /** Configured writable roots missing on this host. */
  missing: string[];
  /** Why an auto default ran unconfined (`platform_native`). */
  unconfinedBecause?: string;
}

/** {@link planSandbox}'s answer. */
export type SandboxDecision = { ok: true; plan: SandboxPlan } | { ok: false; errorCode: ErrorCode; message: string };

function facts(policy: SandboxPolicy, backend: SandboxFacts['backend']): SandboxFacts {
  return { backend, mode: policy.mode, network: policy.network };
}

function what(policy: SandboxPolicy): string {
  return policy.network === 'deny' ? `${policy.mode}, network deny` : policy.mode;
}

/**
 * Decides how to confine one run (SB1):
 * - `danger-full-access` → native, `trusted_native`;
 * - a working bubblewrap → `bubblewrap` with the policy's mounts and network;
 * - none, for the auto default (`explicit: false`) → native, `platform_native`
 *   (the receipt says unconfined);
 * - none, for an explicit policy → refused with `sandbox_unavailable`, the
 *   message naming the reason and what to install. Nothing runs.
 *
 * @param policy the session's policy (absent: {@link DEFAULT_SANDBOX_POLICY}).
 * @param where.workspace absolute workspace root; `where.cwd` the run's directory.
 * @param env where `ZUNO_BWRAP`/`PATH` are read (default `process.env`).
 * Never throws.
 */
export async function planSandbox(
  policy: SandboxPolicy | undefined,
  where: { workspace: string; cwd: string },
  env: NodeJS.ProcessEnv = process.env,
): Promise<SandboxDecision> {
  const p = policy ?? DEFAULT_SANDBOX_POLICY;
  if (p.mode === 'danger-full-access')
    return { ok: true, plan: { facts: facts(p, 'trusted_native'), writable: [], missing: [] } };
  const found = await discoverBubblewrap({ workspace: where.workspace, network: p.network, env });
  if (!found.ok) {
    if (!p.explicit)
      return {
        ok: true,
        plan: { facts: facts(p, 'platform_native'), writable: [], missing: [], unconfinedBecause: found.reason },
      };
    return {
      ok: false,
      errorCode: SANDBOX_UNAVAILABLE,
      message:
        `The sandbox this session requires (${what(p)}) is not available: ${found.reason}. Nothing ran. ` +
        `To run it confined, ${BWRAP_INSTALL_HINT} on the host that runs the session's worker; ` +
        'or change "sandbox" in zuno.json (leaving it out runs unconfined where no sandbox exists).',
    };
  }
  try {
    const mounts = await sandboxMounts(p, {
      ...where,
      keepVisible: [dirname(GUARD_PATH), dirname(process.execPath)],
    });
    return {
      ok: true,
      plan: {
        facts: facts(p, 'bubblewrap'),
        bwrap: { file: found.bwrap, args: mounts.args },
        writable: mounts.writable,
        missing: mounts.missing,
      },
    };
  } catch (err) {
    return {
      ok: false,
      errorCode: SANDBOX_UNAVAILABLE,
      message: `The sandbox (${what(p)}) could not be set up: ${err instanceof Error ? err.message : String(err)}. Nothing ran.`,
    };
  }
}
