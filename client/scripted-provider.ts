import type { Script } from './local-provider/script.js';
import { startLocalProvider } from './local-provider/server.js';
import { localProvider, type resolveModel } from './zuno-config.js';

/** The provider and model a command's session runs on. */
export type ResolvedModel = ReturnType<typeof resolveModel>;

/**
 * The model a command's session runs on: `configured` when the user named a
 * real model, else the built-in local provider serving `script` on loopback
 * (model `scripted`); the server is stopped by the command's `cleanups`.
 * Exactly one of the two is given (the caller checked that offline).
 */
export async function modelFor(
  configured: ResolvedModel | undefined,
  script: Script | undefined,
  cleanups: (() => Promise<unknown>)[],
): Promise<ResolvedModel> {
  if (configured) return configured;
  const server = await startLocalProvider({ script: script! });
  cleanups.unshift(() => server.close());
  return { provider: localProvider(server.url), model: 'scripted' };
}
