/**
 * Provider endpoints that are resolved where the model call runs, not where
 * the session was started. A scripted model (`--script`) is recorded as
 * `zuno-script://<instance>/v1`: the worker that runs the model step (the
 * host worker service, or a command's in-process worker) serves that script
 * from its own loopback local provider (`worker/scripted-models.ts`), so a
 * scripted session outlives the command that started it (issue 25 item 2).
 */
import type { ProviderConfig } from './types.js';
import { ProviderError } from './errors.js';
import { scriptInstanceOf } from '../../core/script-url.js';

/** Maps a session's provider config to the config to call in this process. */
export type EndpointResolver = (cfg: ProviderConfig) => Promise<ProviderConfig>;

let resolver: EndpointResolver | null = null;

/**
 * Installs this process's endpoint resolver (a worker does, at start: it
 * serves `zuno-script://` base URLs and refreshes the stored API keys before
 * each call, `worker/provider-endpoints.ts`). null: none.
 */
export function setEndpointResolver(r: EndpointResolver | null): void {
  resolver = r;
}

/**
 * The provider config to call, through the installed resolver: `cfg`
 * itself, or — for a scripted model — `cfg` with the base URL of the local
 * provider serving its script in this process.
 * @throws ProviderError `provider_bad_request` (not retried) when this
 *   process cannot serve scripts (no resolver installed) or the resolver
 *   cannot (its script is not stored in this home).
 */
export async function resolveEndpoint(cfg: ProviderConfig): Promise<ProviderConfig> {
  if (resolver) return resolver(cfg);
  if (scriptInstanceOf(cfg.baseUrl) !== null) throw scriptUnavailable(cfg, 'this process serves no scripted models');
  return cfg;
}

/** The typed failure of a scripted model this process cannot serve (`why` in plain words). */
export function scriptUnavailable(cfg: ProviderConfig, why: string): ProviderError {
  return new ProviderError('provider_bad_request', {
    providerId: cfg.id,
    diagnostic: { reason: `scripted model ${cfg.baseUrl}: ${why}` },
  });
}
