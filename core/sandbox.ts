/**
 * The shell sandbox policy a session carries (SH10, SB1, PM1) and the
 * sandbox facts every shell receipt records. Pure data: the policy is
 * resolved from `zuno.json` by the client (client/sandbox-config.ts), travels
 * in `SessionMeta.sandbox` and in the tool / background activity inputs, and
 * is enforced by the shell engine (activities/tools/shell/sandbox*.ts).
 */

/**
 * What a command may write: `read-only` — nothing but a private /tmp;
 * `workspace-write` — the workspace, the system temp dir and the writable
 * roots; `danger-full-access` — no confinement (native execution).
 */
export type SandboxMode = 'read-only' | 'workspace-write' | 'danger-full-access';

/** `deny`: a private network namespace (only its own loopback, SB4); `allow`: the host's network. */
export type SandboxNetwork = 'deny' | 'allow';

/**
 * How a command actually ran (SB1): `bubblewrap` — confined by Linux
 * bubblewrap; `platform_native` — the auto default found no working backend
 * and ran it unconfined; `trusted_native` — the config chose native
 * execution (`danger-full-access` / `backend: "native"`). Both native forms
 * keep the permission mode but are not OS isolation.
 */
export type SandboxBackend = 'bubblewrap' | 'platform_native' | 'trusted_native';

/** The resolved sandbox policy of a session (its recorded authority over what shell commands can reach). */
export interface SandboxPolicy {
  mode: SandboxMode;
  network: SandboxNetwork;
  /** Absolute paths writable besides the workspace and the temp dir (`workspace-write` only); resolved at session start. */
  writableRoots: string[];
  /**
   * true when the config asked for confinement (a `read-only`/`workspace-write`
   * mode, `network: "deny"`, `writable_roots` or `backend: "auto"`): with no
   * working backend the call is refused (`sandbox_unavailable`), never run
   * unconfined. false for the auto default: it falls back to `platform_native`.
   */
  explicit: boolean;
}

/** The sandbox facts of one run, stored on its verification receipt. */
export interface SandboxFacts {
  backend: SandboxBackend;
  /** The policy's mode (with a native backend it is recorded, not enforced). */
  mode: SandboxMode;
  network: SandboxNetwork;
}

/**
 * The policy of a session whose config has no `sandbox` key, and of sessions
 * recorded before the sandbox existed (SB1 Linux default): `workspace-write`
 * with the host network when bubblewrap works, else `platform_native`.
 */
export const DEFAULT_SANDBOX_POLICY: SandboxPolicy = {
  mode: 'workspace-write',
  network: 'allow',
  writableRoots: [],
  explicit: false,
};
