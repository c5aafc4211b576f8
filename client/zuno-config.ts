import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ZunoError } from '../core/errors.js';
import { DEFAULT_PROVIDER_RETRY, type ProviderConfig } from '../core/provider-config.js';
import { formatZodIssues } from '../core/zod-issues.js';

const RetrySchema = z.strictObject({
  max_attempts: z.number().int().min(1).max(20).default(DEFAULT_PROVIDER_RETRY.maxAttempts),
  initial_delay_ms: z.number().int().positive().default(DEFAULT_PROVIDER_RETRY.initialDelayMs),
  max_delay_ms: z.number().int().positive().default(DEFAULT_PROVIDER_RETRY.maxDelayMs),
  recovery_window_ms: z.number().int().positive().default(DEFAULT_PROVIDER_RETRY.recoveryWindowMs),
});

const ProviderSchema = z.strictObject({
  transport: z.literal('chat-completions').default('chat-completions'),
  // The base URL travels in the session workflow input (Temporal history, the
  // UI): credentials belong in api_key_env, never in the URL (PR6).
  base_url: z.url({ protocol: /^https?$/ }).refine((u) => {
    const url = new URL(u);
    return url.username === '' && url.password === '' && url.search === '';
  }, 'must not carry credentials or a query string; put the key in api_key_env'),
  api_key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
    .optional(),
  retry: RetrySchema.prefault({}),
  header_timeout_ms: z.number().int().positive().default(330_000),
  chunk_timeout_ms: z.number().int().positive().default(120_000),
});

const ZunoConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  /** Default model as `provider/model`. */
  model: z
    .string()
    .regex(/^[^/\s]+\/\S+$/, 'expected provider/model')
    .optional(),
  providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), ProviderSchema).default({}),
  concurrency: z.strictObject({ tool_calls: z.number().int().min(1).max(64).default(8) }).prefault({}),
});

/** Validated `zuno.json` (provider and session settings; temporal.yaml holds the Temporal side). */
export type ZunoConfig = z.infer<typeof ZunoConfigSchema>;

/**
 * Built-in providers reachable without a config file. `openai` and
 * `openrouter` speak Chat Completions here (the Responses surface is a later
 * issue); keys come from the named env vars.
 */
const BUILTIN_PROVIDERS: ZunoConfig['providers'] = {
  openai: ProviderSchema.parse({ base_url: 'https://api.openai.com/v1', api_key_env: 'OPENAI_API_KEY' }),
  openrouter: ProviderSchema.parse({ base_url: 'https://openrouter.ai/api/v1', api_key_env: 'OPENROUTER_API_KEY' }),
};

/**
 * Loads `zuno.json`: `explicitPath`, else `$ZUNO_CONFIG`, else `<dir>/zuno.json`
 * when it exists, else an empty config.
 * @throws ZunoError `config_invalid` naming the file and each bad or unknown key; `config_missing` for an explicit path that cannot be read.
 */
export function loadZunoConfig(dir: string, explicitPath?: string): ZunoConfig {
  const chosen = explicitPath ?? process.env.ZUNO_CONFIG;
  const path = resolve(dir, chosen ?? 'zuno.json');
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'ENOENT' && chosen === undefined) return ZunoConfigSchema.parse({});
    throw new ZunoError('config_missing', `cannot read Zuno config ${path}: ${(err as Error).message}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new ZunoError('config_invalid', `${path}: not valid JSON: ${(err as Error).message}`);
  }
  const parsed = ZunoConfigSchema.safeParse(raw);
  if (!parsed.success) throw new ZunoError('config_invalid', `${path}: ${formatZodIssues(parsed.error)}`);
  return parsed.data;
}

/**
 * Resolves `provider/model` against the config (then the built-ins) into a
 * frozen ProviderConfig (PR1: retry frozen with the resolved provider).
 * @throws ZunoError `model_invalid` for a malformed reference, `provider_unknown` naming the known providers.
 */
export function resolveModel(cfg: ZunoConfig, ref: string): { provider: ProviderConfig; model: string } {
  const slash = ref.indexOf('/');
  if (slash <= 0 || slash === ref.length - 1) {
    throw new ZunoError('model_invalid', `--model must be provider/model (got "${ref}")`);
  }
  const id = ref.slice(0, slash);
  const model = ref.slice(slash + 1);
  const p = cfg.providers[id] ?? BUILTIN_PROVIDERS[id];
  if (!p) {
    const known = [...new Set([...Object.keys(cfg.providers), ...Object.keys(BUILTIN_PROVIDERS)])].join(', ');
    throw new ZunoError(
      'provider_unknown',
      `unknown provider "${id}" (configured: ${known}); add it to zuno.json providers`,
    );
  }
  return { provider: toProviderConfig(id, p), model };
}

/** Converts a validated provider entry into the frozen runtime shape. */
export function toProviderConfig(id: string, p: z.infer<typeof ProviderSchema>): ProviderConfig {
  return {
    id,
    transport: p.transport,
    baseUrl: p.base_url.replace(/\/+$/, ''),
    ...(p.api_key_env ? { apiKeyEnv: p.api_key_env } : {}),
    retry: {
      maxAttempts: p.retry.max_attempts,
      initialDelayMs: p.retry.initial_delay_ms,
      maxDelayMs: p.retry.max_delay_ms,
      recoveryWindowMs: p.retry.recovery_window_ms,
    },
    headerTimeoutMs: p.header_timeout_ms,
    chunkTimeoutMs: p.chunk_timeout_ms,
  };
}

/** The provider entry for the built-in local provider server at `baseUrl` (used by `--script`). */
export function localProvider(baseUrl: string): ProviderConfig {
  return toProviderConfig('local', ProviderSchema.parse({ base_url: baseUrl }));
}
