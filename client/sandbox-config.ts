/**
 * The `sandbox` key of `zuno.json` (SH10, SB1; key names decided where SB9
 * leaves them open — docs/sandbox.md) and its resolution into the
 * {@link SandboxPolicy} a session carries.
 */
import { homedir } from 'node:os';
import { isAbsolute, resolve } from 'node:path';
import { z } from 'zod';
import { DEFAULT_SANDBOX_POLICY, type SandboxPolicy } from '../core/sandbox.js';

/** `zuno.json` `sandbox`: every key optional; unknown keys are refused by name. */
export const SandboxSchema = z
  .strictObject({
    /** SB1: `auto` (confine with a discovered backend, refuse without one) or `native` (recorded `trusted_native`). */
    backend: z.enum(['auto', 'native']).optional(),
    mode: z.enum(['read-only', 'workspace-write', 'danger-full-access']).optional(),
    network: z.enum(['deny', 'allow']).optional(),
    /** Extra writable directories under `workspace-write`: absolute, `~/…`, or relative to the workspace. */
    writable_roots: z.array(z.string().min(1).max(4096)).max(64).optional(),
  })
  .superRefine((s, ctx) => {
    const native = s.backend === 'native' || s.mode === 'danger-full-access';
    if (s.backend === 'native' && s.mode !== undefined && s.mode !== 'danger-full-access')
      ctx.addIssue({
        code: 'custom',
        path: ['mode'],
        message: `backend "native" does not confine, so it cannot honour "${s.mode}"; use backend "auto" (or leave it out)`,
      });
    if (native && s.network === 'deny')
      ctx.addIssue({
        code: 'custom',
        path: ['network'],
        message: 'network "deny" needs a confining backend; it cannot be had with native execution',
      });
    if (s.writable_roots !== undefined && (native || s.mode === 'read-only'))
      ctx.addIssue({
        code: 'custom',
        path: ['writable_roots'],
        message: 'writable_roots apply only to mode "workspace-write"',
      });
  });

/** The validated `sandbox` entry of zuno.json. */
export type SandboxConfig = z.infer<typeof SandboxSchema>;

function rootPath(p: string, workspace: string): string {
  if (p === '~') return homedir();
  if (p.startsWith('~/')) return resolve(homedir(), p.slice(2));
  return isAbsolute(p) ? resolve(p) : resolve(workspace, p);
}

/**
 * The session's sandbox policy from the config (SB1):
 * - no `sandbox` key, or one with only `network: "allow"`: the auto default
 *   ({@link DEFAULT_SANDBOX_POLICY}: confined when bubblewrap works, else
 *   `platform_native`);
 * - `danger-full-access` or `backend: "native"`: native execution
 *   (`trusted_native`);
 * - anything that asks for a constraint (`read-only`/`workspace-write`,
 *   `network: "deny"`, `writable_roots`, `backend: "auto"`): `explicit`, so
 *   a host without a working backend refuses the call instead.
 *
 * @param workspace absolute workspace root (relative writable roots resolve against it).
 * @returns a new policy; writable roots absolute (`~` is this user's home), deduplicated.
 */
export function sandboxPolicy(cfg: SandboxConfig | undefined, workspace: string): SandboxPolicy {
  if (!cfg) return { ...DEFAULT_SANDBOX_POLICY, writableRoots: [] };
  const mode = cfg.backend === 'native' ? 'danger-full-access' : (cfg.mode ?? DEFAULT_SANDBOX_POLICY.mode);
  const writableRoots = [...new Set((cfg.writable_roots ?? []).map((p) => rootPath(p, workspace)))];
  const explicit =
    mode !== 'danger-full-access' &&
    (cfg.mode !== undefined || cfg.network === 'deny' || cfg.writable_roots !== undefined || cfg.backend === 'auto');
  return { mode, network: cfg.network ?? DEFAULT_SANDBOX_POLICY.network, writableRoots, explicit };
}
