import { machineHostId } from '../../activities/infra/index.js';
import { ZunoError } from '../../core/errors.js';
import { DEFAULT_TASK_QUEUE } from '../../core/session/meta.js';
import { loadTemporalConfig, type TemporalConfig } from '../../worker/temporal-config.js';
import { HOST_ID_PATTERN } from '../../core/host-id.js';
import { loadDeploymentFile, type DeploymentFile, type Sourced } from './deployment-file.js';
import { projectionIdentity } from './identity.js';

/** One resolved value and where it came from, in plain words (`env TEMPORAL_ADDRESS`, a file's path, `default`). */
export interface Resolved<T> {
  value: T;
  source: string;
}

/**
 * What this process resolved (issue 33): every Zuno process — commands, the
 * host worker service, `serve`, `acp` — resolves the Temporal target, the
 * task queue, the projection and the host id here, the same way.
 */
export interface ResolvedDeployment {
  /** The deployment file in force; null: none (the single-machine default). */
  file: DeploymentFile | null;
  /** temporal.yaml with the deployment's values laid over it. */
  cfg: TemporalConfig;
  /** The external server's address; null: this home's embedded dev server. */
  address: Resolved<string> | null;
  namespace: Resolved<string>;
  taskQueue: Resolved<string>;
  /** The projection: `url` undefined means the home's SQLite file; `id` has no credentials. */
  projection: Resolved<string | undefined> & { id: string };
  host: Resolved<string>;
}

/**
 * An environment variable against the deployment file's value: the variable
 * wins where the file is silent; where both speak they must agree (`same`
 * compares them), else nothing starts.
 * @throws ZunoError `deployment_conflict` naming the key, both values and both sources.
 */
function pick(
  env: string,
  fromFile: Sourced<string> | undefined,
  same: (a: string, b: string) => boolean = (a, b) => a === b,
  shown: (v: string) => string = (v) => v,
): Resolved<string> | undefined {
  const v = process.env[env];
  if (v !== undefined && v !== '') {
    if (fromFile && !same(v, fromFile.value))
      throw new ZunoError(
        'deployment_conflict',
        `${env}=${shown(v)} in this environment, but the deployment file ${fromFile.file} says ${shown(fromFile.value)}: unset ${env} (the file decides) or change the file`,
        { key: env },
      );
    return { value: v, source: `env ${env}` };
  }
  return fromFile ? { value: fromFile.value, source: fromFile.file } : undefined;
}

/**
 * This host's id: `ZUNO_HOST_ID`, else the home deployment file's `host`, else the hostname.
 * @throws ZunoError `config_invalid` (a malformed id or file), `deployment_conflict`.
 */
export function resolveHost(home: string, file: DeploymentFile | null = loadDeploymentFile(home)): Resolved<string> {
  const env = process.env.ZUNO_HOST_ID;
  if (env !== undefined && env !== '' && !HOST_ID_PATTERN.test(env))
    throw new ZunoError(
      'config_invalid',
      `ZUNO_HOST_ID "${env.slice(0, 60)}" may hold only letters, digits, '.', '_' and '-' (at most 100, not only dots)`,
    );
  return pick('ZUNO_HOST_ID', file?.host) ?? { value: hostIdOfHostname(), source: 'the hostname' };
}

/** This machine's hostname as a host id (letters, digits, `.`, `_`, `-`; at most 100). */
export function hostIdOfHostname(): string {
  return machineHostId();
}

/**
 * Resolves the whole deployment for the home `home` with `temporalYaml` (see
 * client/context.ts resolvePaths). Precedence per value: the environment
 * variable, else the deployment file, else temporal.yaml, else the default;
 * an environment variable that contradicts the file is refused.
 * @throws ZunoError `config_invalid`, `config_missing`, `deployment_conflict`.
 */
export function resolveDeployment(paths: { home: string; temporalYaml: string }): ResolvedDeployment {
  const file = loadDeploymentFile(paths.home);
  const cfg = loadTemporalConfig(paths.home, paths.temporalYaml);
  const yaml = `temporal.yaml ${paths.temporalYaml}`;
  const address =
    pick('TEMPORAL_ADDRESS', file?.address) ??
    (cfg.server.mode === 'external' ? { value: cfg.server.address, source: yaml } : null);
  const namespace = pick('TEMPORAL_NAMESPACE', file?.namespace) ?? { value: cfg.server.namespace, source: yaml };
  const taskQueue = file?.taskQueue
    ? { value: file.taskQueue.value, source: file.taskQueue.file }
    : { value: cfg.taskQueue ?? DEFAULT_TASK_QUEUE, source: yaml };
  const idOf = (url: string) => projectionIdentity(url, paths.home);
  const url = pick('DATABASE_URL', file?.projection, (a, b) => idOf(a) === idOf(b), idOf);
  const projection = url
    ? { value: url.value, source: url.source, id: idOf(url.value) }
    : { value: undefined, source: 'default', id: projectionIdentity(undefined, paths.home) };
  if (address) cfg.server = { ...cfg.server, mode: 'external', address: address.value };
  cfg.server.namespace = namespace.value;
  cfg.taskQueue = taskQueue.value;
  if (file?.workerVersioning) cfg.workerVersioning = file.workerVersioning.value;
  return { file, cfg, address, namespace, taskQueue, projection, host: resolveHost(paths.home, file) };
}
