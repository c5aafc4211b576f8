/**
 * The base URL a scripted model (`--script`) is recorded with:
 * `zuno-script://<instance>/v1`, resolved where the model call runs
 * (activities/providers/scripted-endpoint.ts). Pure.
 */

/** URL scheme of a scripted model's base URL. */
export const SCRIPT_SCHEME = 'zuno-script:';

/** The base URL of a scripted model stored in the home as `instance` (`zuno-script://<instance>/v1`). */
export function scriptBaseUrl(instance: string): string {
  return `zuno-script://${instance}/v1`;
}

/** The script instance a `zuno-script://` base URL names, or null for any other URL. */
export function scriptInstanceOf(baseUrl: string): string | null {
  if (!baseUrl.startsWith(`${SCRIPT_SCHEME}//`)) return null;
  return baseUrl.slice(SCRIPT_SCHEME.length + 2).split('/')[0] || null;
}
