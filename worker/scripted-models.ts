/**
 * The scripted models a worker serves (issue 25 item 2). A command started
 * with `--script` stores the script in the home (`client/scripted-provider.ts`:
 * `<home>/scripts/<instance>.json`) and records the session's provider as
 * `zuno-script://<instance>/v1`; the worker that runs a model step of that
 * session starts one loopback local provider per instance on first use and
 * keeps its reply bookkeeping in `<instance>.state.json`, so a restarted
 * worker goes on with the reply the conversation is at.
 */
import { join } from 'node:path';
import { readdir, readFile, rm, stat } from 'node:fs/promises';
import type { ProviderConfig } from '../activities/providers/types.js';
import { scriptInstanceOf } from '../core/script-url.js';
import { scriptUnavailable } from '../activities/providers/scripted-endpoint.js';
import type { Script } from '../local-provider/script.js';
import { type LocalProvider, startLocalProvider } from '../local-provider/server.js';

/** Folder of a home's stored scripts. */
export function scriptsDir(stateDir: string): string {
  return join(stateDir, 'scripts');
}

/** How long a stored script is kept after it was last used (its reply bookkeeping last written), in ms: 30 days. */
export const SCRIPT_KEEP_MS = 30 * 24 * 3600 * 1000;

/**
 * Removes the stored scripts of a home that nothing used for `keepMs` (default {@link SCRIPT_KEEP_MS}): an
 * instance's script and its `.state.json` go together, judged by the newer of the two modification times. A
 * scripted session idle that long is over (its command and any follower are long gone). Returns the instances
 * removed. Never throws: a file it cannot read or remove is left.
 */
export async function pruneScripts(stateDir: string, nowMs: number, keepMs = SCRIPT_KEEP_MS): Promise<string[]> {
  const dir = scriptsDir(stateDir);
  const names = await readdir(dir).catch(() => [] as string[]);
  const lastUse = new Map<string, number>();
  for (const name of names) {
    const instance = name.replace(/(\.state)?\.json$/, '');
    if (instance === name) continue;
    const mtime = (await stat(join(dir, name)).catch(() => undefined))?.mtimeMs;
    if (mtime !== undefined) lastUse.set(instance, Math.max(lastUse.get(instance) ?? 0, mtime));
  }
  const removed: string[] = [];
  for (const [instance, at] of lastUse) {
    if (nowMs - at < keepMs) continue;
    await rm(join(dir, `${instance}.json`), { force: true }).catch(() => undefined);
    await rm(join(dir, `${instance}.state.json`), { force: true }).catch(() => undefined);
    removed.push(instance);
  }
  return removed;
}

/** The scripted models of one worker process: a local provider per script instance, started on first use. */
export class ScriptedModels {
  private readonly servers = new Map<string, Promise<LocalProvider>>();

  constructor(private readonly stateDir: string) {}

  /**
   * `cfg` with the base URL of the local provider serving its script here.
   * @throws ProviderError `provider_bad_request` when the script is not stored in this home or is invalid.
   */
  async resolve(cfg: ProviderConfig): Promise<ProviderConfig> {
    const instance = scriptInstanceOf(cfg.baseUrl);
    if (instance === null || !/^[A-Za-z0-9_.-]+$/.test(instance)) throw scriptUnavailable(cfg, 'not a script instance');
    let server = this.servers.get(instance);
    if (!server) {
      server = this.start(instance);
      this.servers.set(instance, server);
      server.catch(() => this.servers.delete(instance));
    }
    try {
      return { ...cfg, baseUrl: (await server).url };
    } catch (err) {
      throw scriptUnavailable(cfg, `its script could not be served here (${(err as Error).message})`);
    }
  }

  /** Stops every local provider this process started. */
  async close(): Promise<void> {
    const all = [...this.servers.values()];
    this.servers.clear();
    await Promise.all(all.map((s) => s.then((p) => p.close()).catch(() => undefined)));
  }

  private async start(instance: string): Promise<LocalProvider> {
    const file = join(scriptsDir(this.stateDir), `${instance}.json`);
    const script = JSON.parse(await readFile(file, 'utf8')) as Script;
    return startLocalProvider({ script, stateFile: join(scriptsDir(this.stateDir), `${instance}.state.json`) });
  }
}
