/**
 * The environment a model-assembled command inherits (SH6): the host
 * environment minus Zuno's private `ZUNO_*` namespace.
 */

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
 * @returns a new object: every host variable except the `ZUNO_*` namespace
 *   (case-insensitive); `ZUNO`, `AGENT`, `*_API_KEY` and `*_TOKEN` are kept on
 *   purpose (filtering credentials would silently break gh, aws, gcloud…).
 *   Undefined values are dropped.
 */
export function shellEnv(
  host: NodeJS.ProcessEnv = process.env,
  hook?: (env: Record<string, string>) => Record<string, string>,
): Record<string, string> {
  const env: Record<string, string> = {};
  for (const [name, value] of Object.entries(host)) {
    if (value === undefined || isZunoPrivate(name)) continue;
    env[name] = value;
  }
  return hook ? hook({ ...env }) : env;
}
