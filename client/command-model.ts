import { ZunoError } from '../core/errors.js';
import type { Script } from './local-provider/script.js';
import { apiKeyMissing, standaloneExpected } from './commands/run.js';
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
 * drives it; else `modelRef` resolved in `zuno.json` — and, when no
 * standalone worker is expected to serve it, its API key present here
 * (refused before any server starts).
 * @throws ZunoError `model_missing`, `config_invalid` (an unknown provider), `api_key_missing`.
 */
export function commandModel(
  zcfg: ReturnType<typeof loadZunoConfig>,
  modelRef: string | undefined,
  script: Script | undefined,
  paths: ReturnType<typeof resolvePaths>,
): ReturnType<typeof resolveModel> | undefined {
  if (!script && !modelRef) throw modelMissing();
  const configured = script ? undefined : resolveModel(zcfg, modelRef!);
  if (configured && !standaloneExpected(paths)) {
    const keyEnv = configured.provider.apiKeyEnv;
    if (keyEnv !== undefined && !process.env[keyEnv]) throw apiKeyMissing(configured.provider.id, keyEnv);
  }
  return configured;
}
