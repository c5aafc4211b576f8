import { readFileSync } from 'node:fs';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { ZunoError } from '../../core/errors.js';
import { formatZodIssues } from '../../core/zod-issues.js';
import { HOST_ID_PATTERN } from '../../core/host-id.js';

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
  host: z
    .string()
    .regex(HOST_ID_PATTERN, "a host id is letters, digits, '.', '_', '-' (at most 100, not only dots)")
    .optional(),
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
  if (Object.keys(homeFile).length === 0)
    throw new ZunoError(
      'config_invalid',
      `${path} is empty: give it extends: <the shared deployment file> and host: <this host's id>, or remove it (single-machine use)`,
    );
  const out: DeploymentFile = { path };
  if (homeFile.extends !== undefined) {
    const sharedPath = isAbsolute(homeFile.extends) ? homeFile.extends : resolve(dirname(path), homeFile.extends);
    const raw = readYaml(sharedPath, true, path);
    refuseHomeKeys(raw, sharedPath);
    out.shared = sharedPath;
    assign(out, parseWith(SharedSchema, raw, sharedPath), sharedPath);
  }
  assign(out, homeFile, path);
  if (homeFile.host !== undefined) out.host = { value: homeFile.host, file: path };
  if (out.shared && (out.address === undefined || out.projection === undefined))
    throw new ZunoError(
      'config_invalid',
      `${out.shared} (extended by ${path}) sets no ${out.address === undefined ? 'temporal.address' : 'projection'}: a shared deployment file names the Temporal server and the projection every host uses`,
    );
  return out;
}

/** The keys only a home's own file may hold, named plainly when a shared file has them. */
function refuseHomeKeys(raw: unknown, file: string): void {
  if (raw === null || typeof raw !== 'object') return;
  if ('host' in raw)
    throw new ZunoError(
      'config_invalid',
      `${file}: host belongs in each host's own deployment.yaml, not in the shared file every host reads`,
    );
  if ('extends' in raw)
    throw new ZunoError(
      'config_invalid',
      `${file}: a shared deployment file cannot extend another (one level: a home's file extends the shared one)`,
    );
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
    // Set but empty is a value (a password-less login); only an unset variable is an error.
    if (v === undefined)
      throw new ZunoError(
        'config_invalid',
        `${file}: projection uses \${${name}}, which is not set in this environment`,
      );
    return encodeURIComponent(v);
  });
}

function readYaml(path: string, required: boolean, extendedBy?: string): unknown {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && !required) return null;
    const by = extendedBy ? ` (extended by ${extendedBy})` : '';
    throw new ZunoError('config_missing', `cannot read deployment file ${path}${by}: ${(err as Error).message}`);
  }
  try {
    return parseYaml(text) ?? {};
  } catch (err) {
    const where = err instanceof YAMLParseError ? ` at line ${err.linePos?.[0]?.line ?? '?'}` : '';
    const what = (err as Error).message.split('\n')[0]!.replace(/:\s*$/, '');
    throw new ZunoError('config_invalid', `${path}: not valid YAML${where}: ${what}`);
  }
}

function parseWith<T extends z.ZodType>(schema: T, raw: unknown, file: string): z.infer<T> {
  const parsed = schema.safeParse(raw);
  if (!parsed.success) throw new ZunoError('config_invalid', `${file}: ${formatZodIssues(parsed.error)}`, { file });
  return parsed.data;
}
