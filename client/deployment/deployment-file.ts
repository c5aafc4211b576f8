import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { ZunoError } from '../../core/errors.js';
import { formatZodIssues } from '../../core/zod-issues.js';

/** A host id: letters, digits, `.`, `_`, `-`; at most 100. */
export const HOST_ID_PATTERN = /^[A-Za-z0-9._-]{1,100}$/;

const TemporalSection = z.strictObject({
  address: z.string().min(1).optional(),
  namespace: z.string().min(1).optional(),
  taskQueue: z
    .string()
    .regex(/^[A-Za-z0-9._-]{1,100}$/, 'a task queue name is letters, digits, ., _, - (at most 100)')
    .optional(),
  /** Worker Deployment Versioning of the workflow side (docs/versioning.md); every host of a deployment the same. */
  workerVersioning: z.boolean().optional(),
});

/** What a team shares: the Temporal target and the projection. `host` is per machine and may not appear here. */
const SharedSchema = z.strictObject({
  name: z.string().min(1).max(100).optional(),
  temporal: TemporalSection.optional(),
  projection: z.string().min(1).optional(),
});

/** A home's own file: optionally `extends` the shared one, names this host, may hold shared keys itself. */
const HomeSchema = SharedSchema.extend({
  extends: z.string().min(1).optional(),
  host: z.string().regex(HOST_ID_PATTERN, "a host id is letters, digits, '.', '_', '-' (at most 100)").optional(),
});

/** One deployment value and the file it came from. */
export interface Sourced<T> {
  value: T;
  /** Absolute path of the file that set it. */
  file: string;
}

/**
 * The deployment as the files say it (issue 33): each value with the file
 * that set it. `projection` is the URL after `${NAME}` expansion from the
 * environment (a password stays out of the file).
 */
export interface DeploymentFile {
  /** The home's file (`$ZUNO_DEPLOYMENT`, else `$ZUNO_HOME/deployment.yaml`). */
  path: string;
  /** The shared file it extends, when it does. */
  shared?: string;
  name?: Sourced<string>;
  address?: Sourced<string>;
  namespace?: Sourced<string>;
  taskQueue?: Sourced<string>;
  projection?: Sourced<string>;
  host?: Sourced<string>;
  workerVersioning?: Sourced<boolean>;
}

/** Path of the home's deployment file: `$ZUNO_DEPLOYMENT` (absolute or relative to cwd), else `<home>/deployment.yaml`. */
export function deploymentFilePath(home: string): { path: string; explicit: boolean } {
  const env = process.env.ZUNO_DEPLOYMENT;
  return env ? { path: resolve(env), explicit: true } : { path: join(home, 'deployment.yaml'), explicit: false };
}

/**
 * Reads the home's deployment file and the shared file it `extends`
 * (relative to the home file's directory). A key set in both files is an
 * error: one place decides each value. Null when there is no home file
 * (and `$ZUNO_DEPLOYMENT` is unset): no deployment, the single-machine default.
 * @throws ZunoError `config_missing` (a named file that does not exist), `config_invalid` (bad YAML, an unknown
 *   or malformed key, `host` in the shared file, a key in both files, an unset `${NAME}`).
 */
export function loadDeploymentFile(home: string): DeploymentFile | null {
  const { path, explicit } = deploymentFilePath(home);
  const own = readYaml(path, explicit);
  if (own === null) return null;
  const homeFile = parseWith(HomeSchema, own, path);
  const out: DeploymentFile = { path };
  if (homeFile.extends !== undefined) {
    const sharedPath = isAbsolute(homeFile.extends) ? homeFile.extends : resolve(dirname(path), homeFile.extends);
    const shared = parseWith(SharedSchema, readYaml(sharedPath, true), sharedPath);
    out.shared = sharedPath;
    assign(out, shared, sharedPath);
  }
  assign(out, homeFile, path);
  if (homeFile.host !== undefined) out.host = { value: homeFile.host, file: path };
  return out;
}

type SharedValues = z.infer<typeof SharedSchema>;

/** Lays one file's values onto `out`; a value already set by the other file is refused. */
function assign(out: DeploymentFile, v: SharedValues, file: string): void {
  const set = <K extends 'name' | 'address' | 'namespace' | 'taskQueue' | 'projection'>(
    key: K,
    label: string,
    value: string | undefined,
  ) => {
    if (value === undefined) return;
    if (out[key] !== undefined)
      throw new ZunoError(
        'config_invalid',
        `${label} is set in both ${out[key].file} and ${file}: set it in one place (the shared file)`,
      );
    out[key] = { value: key === 'projection' ? expandEnv(value, file) : value, file };
  };
  set('name', 'name', v.name);
  set('address', 'temporal.address', v.temporal?.address);
  set('namespace', 'temporal.namespace', v.temporal?.namespace);
  set('taskQueue', 'temporal.taskQueue', v.temporal?.taskQueue);
  set('projection', 'projection', v.projection);
  if (v.temporal?.workerVersioning !== undefined) {
    if (out.workerVersioning !== undefined)
      throw new ZunoError(
        'config_invalid',
        `temporal.workerVersioning is set in both ${out.workerVersioning.file} and ${file}: set it in one place (the shared file)`,
      );
    out.workerVersioning = { value: v.temporal.workerVersioning, file };
  }
}

/** `${NAME}` in the projection URL from the environment, so a password need not sit in a shared file. */
function expandEnv(value: string, file: string): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_, name: string) => {
    const v = process.env[name];
    if (v === undefined || v === '')
      throw new ZunoError(
        'config_invalid',
        `${file}: projection uses \${${name}}, which is not set in this environment`,
      );
    return encodeURIComponent(v);
  });
}

function readYaml(path: string, required: boolean): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !required) return null;
    throw new ZunoError('config_missing', `cannot read deployment file ${path}: ${(err as Error).message}`);
  }
  try {
    return parseYaml(text) ?? {};
  } catch (err) {
    const where = err instanceof YAMLParseError ? ` at line ${err.linePos?.[0]?.line ?? '?'}` : '';
    throw new ZunoError('config_invalid', `${path}: not valid YAML${where}: ${(err as Error).message.split('\n')[0]}`);
  }
}

function parseWith<T extends z.ZodType>(schema: T, raw: unknown, file: string): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ZunoError('config_invalid', `${file}: ${formatZodIssues(parsed.error)}`, { file });
  return parsed.data;
}
