import { ZunoError } from '../core/errors.js';
import type { Script } from '../local-provider/script.js';
import { apiKeyMissing } from './commands/run-plan.js';
import { keyAvailable, type WorkerMode } from './serving.js';
import type { resolvePaths } from './context.js';
import { loadZunoConfig, resolveModel } from './zuno-config.js';

/** The `model_missing` error of a command that was given neither a model nor a script. */
export function modelMissing(): ZunoError {
  return new ZunoError(
    'model_missing',
    'no model configured: pass --model provider/model (or set "model" in zuno.json), or --script FILE for the local provider',
  );
}

/**
 * The configured model of a command that starts work this process may serve
 * (`goal start`, `council run`), checked offline: `undefined` when a script
 * drives it; else `modelRef` resolved in `zuno.json` — and its API key
 * available to the worker that will serve it (`serving.ts` `keyAvailable`;
 * refused before any server starts).
 * @throws ZunoError `model_missing`, `config_invalid` (an unknown provider), `api_key_missing`.
 */
export function commandModel(
  zcfg: ReturnType<typeof loadZunoConfig>,
  modelRef: string | undefined,
  script: Script | undefined,
  paths: ReturnType<typeof resolvePaths>,
  mode: WorkerMode,
): ReturnType<typeof resolveModel> | undefined {
  if (!script && !modelRef) throw modelMissing();
  const configured = script ? undefined : resolveModel(zcfg, modelRef!);
  const keyEnv = configured?.provider.apiKeyEnv;
  if (configured && keyEnv !== undefined && !keyAvailable(paths, keyEnv, mode))
    throw apiKeyMissing(configured.provider.id, keyEnv);
  return configured;
}
