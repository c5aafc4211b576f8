import { setEndpointResolver } from '../activities/providers/scripted-endpoint.js';
import { scriptInstanceOf } from '../core/script-url.js';
import { CredentialRefresher } from '../activities/infra/credentials.js';
import { ScriptedModels } from './scripted-models.js';

/**
 * Makes this worker process resolve provider endpoints for the home
 * `stateDir` (`activities/providers/scripted-endpoint.ts`): before every model call
 * the home's stored API keys are refreshed into the environment
 * (`credentials.ts`), and a scripted model's `zuno-script://` base URL is
 * served by a local provider of this process (`scripted-models.ts`). One
 * resolver per process: the last worker created installs it (every worker
 * of a process serves one home). Returns the scripted models, to close on shutdown.
 */
export function serveProviderEndpoints(stateDir: string): ScriptedModels {
  const models = new ScriptedModels(stateDir);
  const keys = new CredentialRefresher(stateDir);
  setEndpointResolver(async (cfg) => {
    keys.refresh();
    return scriptInstanceOf(cfg.baseUrl) === null ? cfg : models.resolve(cfg);
  });
  return models;
}
