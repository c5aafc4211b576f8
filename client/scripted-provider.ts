import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { scriptBaseUrl } from '../core/script-url.js';
import { scriptsDir } from '../worker/scripted-models.js';
import type { Script } from '../local-provider/script.js';
import { localProvider, type resolveModel } from './zuno-config.js';

/** The provider and model a command's session runs on. */
export type ResolvedModel = ReturnType<typeof resolveModel>;

/**
 * The model a command's session runs on: `configured` when the user named a
 * real model, else the built-in local provider serving `script` (model
 * `scripted`). The script is stored in the home (`<stateDir>/scripts/
 * <owner>-<nonce>.json`, chunk paths already absolute) and the provider's
 * base URL names it (`zuno-script://…`): whichever worker of this home runs
 * the session's model steps serves it (`worker/scripted-models.ts`), so a
 * scripted session, its children and its Council seats go on when the
 * command that started them is gone (issue 25 item 2). `owner` is the id of
 * the work the script drives (session, Council run); each command stores a
 * new instance, so its script starts from its first reply as a fresh local
 * provider always did (the reply bookkeeping then survives worker restarts,
 * not a new command). Exactly one of
 * `configured` and `script` is given (the caller checked that offline).
 */
export function modelFor(
  configured: ResolvedModel | undefined,
  script: Script | undefined,
  home: { stateDir: string; owner: string },
): ResolvedModel {
  if (configured) return configured;
  const text = JSON.stringify(script!);
  const instance = `${home.owner}-${randomBytes(6).toString('hex')}`;
  const dir = scriptsDir(home.stateDir);
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const tmp = join(dir, `${instance}.json.${process.pid}.tmp`);
  writeFileSync(tmp, text, { mode: 0o600 });
  renameSync(tmp, join(dir, `${instance}.json`));
  // The config's schema takes http(s) URLs only; the script's URL is set on the resolved config.
  return { provider: { ...localProvider('http://127.0.0.1/v1'), baseUrl: scriptBaseUrl(instance) }, model: 'scripted' };
}
