/**
 * The environment a model-assembled command inherits (SH6): the host
 * environment minus Zuno's private `ZUNO_*` namespace, with one Zuno
 * variable put back on purpose — `ZUNO_HOST_ID`, the host the call runs on
 * (issue 33).
 */

/** The one Zuno variable a command sees: the id of the host the call runs on (the session's route host). */
export const SHELL_HOST_ID_VAR = 'ZUNO_HOST_ID';

/**
 * True when `name` is in Zuno's private namespace: it starts with `ZUNO_`,
 * compared case-insensitively (`zuno_x`, `Zuno_Y` too). Case folding only
 * widens what is removed; there is no allowlist it could fold a name onto.
 * The bare markers `ZUNO` and `AGENT` are outside the namespace.
 */
export function isZunoPrivate(name: string): boolean {
  return name.toUpperCase().startsWith('ZUNO_');
}

/**
 * Builds the command's environment (SH6).
 *
 * @param host the host environment (default `process.env`).
 * @param hook optional host hook applied after stripping, the only way to
 *   put a value back deliberately; it receives a copy and returns the env.
 * @param hostId the host the call runs on (the session's route host): set as
 *   {@link SHELL_HOST_ID_VAR} after stripping, before the hook — whatever the
 *   worker's own environment held under that name. Absent: not set.
 * @returns a new object: every host variable except the `ZUNO_*` namespace
 *   (case-insensitive), plus `ZUNO_HOST_ID` when `hostId` is given; `ZUNO`,
 *   `AGENT`, `*_API_KEY` and `*_TOKEN` are kept on purpose (filtering
 *   credentials would silently break gh, aws, gcloud…). Undefined values are
 *   dropped.
 */
export function shellEnv(
  host: NodeJS.ProcessEnv = process.env,
  hook?: (env: Record<string, string>) => Record<string, string>,
  hostId?: string,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined || isZunoPrivate(name)) continue;
    env[name] = value;
  }
  if (hostId !== undefined) env[SHELL_HOST_ID_VAR] = hostId;
  return hook ? hook({ ...env }) : env;
}
