import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse as parseYaml, YAMLParseError } from 'yaml';
import { z } from 'zod';
import { DEFAULT_ACTIVITY_DEFAULTS, type ActivityDefaults } from '../core/activity-defaults.js';
import { ZunoError } from '../core/errors.js';
import { formatZodIssues } from '../core/zod-issues.js';

const ms = z.number().int().positive();
const d = DEFAULT_ACTIVITY_DEFAULTS;

const TemporalYamlSchema = z
  .object({
    server: z
      .strictObject({
        mode: z.enum(['dev', 'external']).default('dev'),
        address: z.string().min(1).default('127.0.0.1:7233'),
        namespace: z.string().min(1).default('default'),
        connectTimeoutMs: ms.default(5000),
      })
      .prefault({}),
    dev: z
      .strictObject({
        ip: z.string().min(1).default('127.0.0.1'),
        port: z.number().int().min(1).max(65535).default(7233),
        uiPort: z.number().int().min(1).max(65535).default(8233),
        dbFile: z.string().min(1).default('temporal.db'),
        logLevel: z.enum(['debug', 'info', 'warn', 'error']).default('error'),
      })
      .prefault({}),
    taskQueue: z.string().min(1).default('zuno'),
    /** Worker Deployment Versioning of the workflow side (issue 33, docs/versioning.md); false: unversioned workers. */
    workerVersioning: z.boolean().default(true),
    searchAttributes: z
      .record(
        z.string().regex(/^[A-Za-z][A-Za-z0-9_]*$/, 'search attribute names are letters, digits, _'),
        z.enum(['Keyword', 'Text', 'Int', 'Double', 'Bool', 'Datetime', 'KeywordList']),
      )
      .default({}),
    activities: z
      .strictObject({
        model: z
          .strictObject({
            startToCloseTimeoutMs: ms.default(d.model.startToCloseTimeoutMs),
            heartbeatTimeoutMs: ms.default(d.model.heartbeatTimeoutMs),
          })
          .prefault({}),
        tool: z
          .strictObject({
            startToCloseTimeoutMs: ms.default(d.tool.startToCloseTimeoutMs),
            heartbeatTimeoutMs: ms.default(d.tool.heartbeatTimeoutMs),
          })
          .prefault({}),
        safeRetry: z
          .strictObject({
            initialIntervalMs: ms.default(d.safeRetry.initialIntervalMs),
            backoffCoefficient: z.number().min(1).default(d.safeRetry.backoffCoefficient),
            maximumIntervalMs: ms.default(d.safeRetry.maximumIntervalMs),
            maximumAttempts: z.number().int().min(1).default(d.safeRetry.maximumAttempts),
          })
          .prefault({}),
        projection: z
          .strictObject({ startToCloseTimeoutMs: ms.default(d.projection.startToCloseTimeoutMs) })
          .prefault({}),
      })
      .prefault({}),
  })
  .strict();

/** Validated temporal.yaml (DESIGN.md §2). Durations in ms. */
export type TemporalConfig = z.infer<typeof TemporalYamlSchema> & { activities: ActivityDefaults };

/** Search attributes Zuno sets on its workflows; registered whatever the file lists. */
export const REQUIRED_SEARCH_ATTRIBUTES = {
  ZunoKind: 'Keyword',
  ZunoSessionId: 'Keyword',
  ZunoGoalStatus: 'Keyword',
  ZunoAgent: 'Keyword',
  ZunoModel: 'Keyword',
  ZunoStatus: 'Keyword',
  ZunoParentSession: 'Keyword',
  ZunoRootSession: 'Keyword',
  ZunoCouncilStatus: 'Keyword',
} as const;

/**
 * Parses and validates temporal.yaml text. `source` names the file in errors.
 * @throws ZunoError `config_invalid` naming the file and every bad or unknown key.
 */
export function parseTemporalConfig(text: string, source: string): TemporalConfig {
  let raw: unknown;
  try {
    raw = parseYaml(text) ?? {};
  } catch (err) {
    const where = err instanceof YAMLParseError ? ` at line ${err.linePos?.[0]?.line ?? '?'}` : '';
    throw new ZunoError(
      'config_invalid',
      `${source}: not valid YAML${where}: ${(err as Error).message.split('\n')[0]}`,
    );
  }
  const parsed = TemporalYamlSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ZunoError('config_invalid', `${source}: ${formatZodIssues(parsed.error)}`, {
      file: source,
    });
  }
  const cfg = parsed.data as TemporalConfig;
  cfg.searchAttributes = { ...REQUIRED_SEARCH_ATTRIBUTES, ...cfg.searchAttributes };
  return cfg;
}

/**
 * Loads temporal.yaml: `explicitPath`, else `$ZUNO_TEMPORAL_CONFIG`, else
 * `<root>/temporal.yaml`; a missing default file yields the built-in defaults.
 * @throws ZunoError `config_invalid` (bad content) or `config_missing` (an explicit path that does not exist).
 */
export function loadTemporalConfig(root: string, explicitPath?: string): TemporalConfig {
  const chosen = explicitPath ?? process.env.ZUNO_TEMPORAL_CONFIG;
  const path = resolve(root, chosen ?? 'temporal.yaml');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && chosen === undefined) {
      return parseTemporalConfig('{}', path);
    }
    throw new ZunoError('config_missing', `cannot read Temporal config ${path}: ${(err as Error).message}`);
  }
  return parseTemporalConfig(text, path);
}
