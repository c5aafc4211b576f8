import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { z } from 'zod';
import { ZunoError } from '../core/errors.js';
import {
  DEFAULT_PROVIDER_RETRY,
  DEFAULT_REASONING_REPLAY_MAX_AGE_MS,
  type ProviderConfig,
  resolveSurface,
} from '../core/provider-config.js';
import { formatZodIssues } from '../core/zod-issues.js';
import { BUDGET_MAX } from '../core/goal/budgets.js';
import type { PermissionPolicy } from '../core/permission/types.js';
import { PermissionConfigSchema } from './permission-config.js';
import { SandboxSchema } from './sandbox-config.js';
import { CompactionSchema, ModelsSchema } from './compaction-config.js';
import { McpConfigSchema, McpConnectionsSchema } from './mcp-config.js';
import { NetworkConfigSchema } from './network-config.js';

const RetrySchema = z.strictObject({
  max_attempts: z.number().int().min(1).max(20).default(DEFAULT_PROVIDER_RETRY.maxAttempts),
  initial_delay_ms: z.number().int().positive().default(DEFAULT_PROVIDER_RETRY.initialDelayMs),
  max_delay_ms: z.number().int().positive().default(DEFAULT_PROVIDER_RETRY.maxDelayMs),
  recovery_window_ms: z.number().int().positive().default(DEFAULT_PROVIDER_RETRY.recoveryWindowMs),
});

const SurfaceSchema = z.enum(['chat', 'responses']);
const ReasoningReplaySchema = z.enum(['off', 'encrypted']);

/** Per-model settings of a provider (PR7 explicit model surface, PR8 per-model replay). */
/** Anthropic extended thinking budget: the API's minimum is 1024 tokens. */
const ThinkingBudgetSchema = z.number().int().min(1024).max(1_000_000);

const ModelSettingsSchema = z.strictObject({
  surface: SurfaceSchema.optional(),
  reasoning_replay: ReasoningReplaySchema.optional(),
  thinking_budget_tokens: ThinkingBudgetSchema.optional(),
});

const ProviderSchema = z
  .strictObject({
    /** Wire family; `chat-completions` is the older spelling of `openai` with `surface: "chat"`. */
    transport: z.enum(['openai', 'anthropic', 'chat-completions']).default('openai'),
    /** Provider-level surface of an OpenAI-style endpoint (PR7 spec surface). */
    surface: SurfaceSchema.optional(),
    // The base URL travels in the session workflow input (Temporal history, the
    // UI): credentials belong in api_key_env, never in the URL (PR6).
    base_url: z.url({ protocol: /^https?$/, error: 'must be an http(s) URL such as https://host/v1' }).refine((u) => {
      let url: URL;
      try {
        url = new URL(u);
      } catch {
        return true; // already reported by z.url
      }
      return url.username === '' && url.password === '' && url.search === '';
    }, 'must not carry credentials or a query string; put the key in api_key_env'),
    api_key_env: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'an environment variable name')
      .optional(),
    retry: RetrySchema.prefault({}),
    header_timeout_ms: z.number().int().positive().default(330_000),
    chunk_timeout_ms: z.number().int().positive().default(120_000),
    /** PR8: `encrypted` asks a Responses endpoint for reasoning capsules and replays them. */
    reasoning_replay: ReasoningReplaySchema.default('off'),
    reasoning_replay_max_age_ms: z.number().int().positive().default(DEFAULT_REASONING_REPLAY_MAX_AGE_MS),
    /** Anthropic extended thinking for every model of this provider (a model entry overrides it). */
    thinking_budget_tokens: ThinkingBudgetSchema.optional(),
    models: z.record(z.string().min(1), ModelSettingsSchema).default({}),
  })
  .superRefine((p, ctx) => {
    if (p.transport === 'anthropic' && p.surface) {
      ctx.addIssue({ code: 'custom', path: ['surface'], message: 'an anthropic provider always speaks Messages' });
    }
    if (p.transport !== 'anthropic') {
      if (p.thinking_budget_tokens !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['thinking_budget_tokens'],
          message: 'only an anthropic provider has extended thinking',
        });
      }
      for (const [m, settings] of Object.entries(p.models)) {
        if (settings.thinking_budget_tokens !== undefined) {
          ctx.addIssue({
            code: 'custom',
            path: ['models', m, 'thinking_budget_tokens'],
            message: 'only an anthropic provider has extended thinking',
          });
        }
      }
    }
    if (p.retry.initial_delay_ms > p.retry.max_delay_ms) {
      ctx.addIssue({
        code: 'custom',
        path: ['retry', 'initial_delay_ms'],
        message: `must not exceed retry.max_delay_ms (${p.retry.max_delay_ms})`,
      });
    }
    for (const [m, settings] of Object.entries(p.models)) {
      if (settings.surface && p.transport !== 'openai') {
        ctx.addIssue({
          code: 'custom',
          path: ['models', m, 'surface'],
          message:
            p.transport === 'anthropic'
              ? 'an anthropic provider always speaks Messages'
              : 'transport "chat-completions" fixes the surface; use transport "openai" to choose per model',
        });
      }
    }
    if (p.transport === 'chat-completions' && p.surface === 'responses') {
      ctx.addIssue({
        code: 'custom',
        path: ['surface'],
        message: 'transport "chat-completions" cannot use surface "responses"; use transport "openai"',
      });
    }
  });

/** A validated provider entry of zuno.json. */
type ProviderEntry = z.infer<typeof ProviderSchema>;

const ZunoConfigSchema = z.strictObject({
  $schema: z.string().optional(),
  /** Default model as `provider/model`. */
  model: z
    .string()
    .regex(/^[^/\s]+\/\S+$/, 'expected provider/model')
    .optional(),
  providers: z.record(z.string().regex(/^[a-z0-9][a-z0-9_-]*$/), ProviderSchema).default({}),
  /** TD6: `tool_calls` (a turn's tool calls at once), `mcp_connections` (a session's MCP requests at once, MC9). */
  concurrency: z
    .strictObject({
      tool_calls: z.number().int().min(1).max(64).default(8),
      mcp_connections: McpConnectionsSchema,
    })
    .prefault({}),
  /** Goals (docs/goals.md): `default_token_budget` is the host's token total for a goal started without `--token-budget` (GL13). */
  goal: z
    .strictObject({ default_token_budget: z.number().int().min(1).max(BUDGET_MAX.tokens).optional() })
    .prefault({}),
  /** The permission gate (docs/permissions.md): `mode` and ordered `rules`; absent: standard, no rules. */
  permission: PermissionConfigSchema.prefault({}),
  /** The shell sandbox (SH10, SB1; docs/sandbox.md): absent = the auto default. */
  sandbox: SandboxSchema.optional(),
  /** Context windows by `provider/model` (CP6; docs/compaction.md): they win over the built-in table. */
  models: ModelsSchema.optional(),
  /** Compaction settings (CP7, CP12; docs/compaction.md): absent keys take the defaults. */
  compaction: CompactionSchema.optional(),
  /** MCP servers as tool sources (issue 30; docs/mcp.md): absent = none. */
  mcp: McpConfigSchema.prefault({}),
  /** The web tools and release watches (issue 31; docs/web.md): the private allowlist and the search backend. */
  network: NetworkConfigSchema.prefault({}),
});

/** Validated `zuno.json` (provider and session settings; temporal.yaml holds the Temporal side). */
export type ZunoConfig = z.infer<typeof ZunoConfigSchema>;

/**
 * Built-in providers reachable without a config file (PR7 fixed profiles:
 * openai and xai speak Responses, openrouter Chat Completions, anthropic
 * Messages); keys come from the named env vars.
 */
const BUILTIN_RAW: Readonly<Record<string, Record<string, unknown>>> = {
  openai: { base_url: 'https://api.openai.com/v1', api_key_env: 'OPENAI_API_KEY' },
  openrouter: { base_url: 'https://openrouter.ai/api/v1', api_key_env: 'OPENROUTER_API_KEY' },
  xai: { base_url: 'https://api.x.ai/v1', api_key_env: 'XAI_API_KEY' },
  anthropic: { transport: 'anthropic', base_url: 'https://api.anthropic.com/v1', api_key_env: 'ANTHROPIC_API_KEY' },
};
const BUILTIN_PROVIDERS: ZunoConfig['providers'] = Object.fromEntries(
  Object.entries(BUILTIN_RAW).map(([id, raw]) => [id, ProviderSchema.parse(raw)]),
);

/**
 * A config entry for a catalog id (`openai`, `anthropic`, …) starts from the
 * built-in entry: keys the user leaves out (transport, api_key_env, …) keep
 * the catalog's values instead of the generic defaults.
 */
function withCatalogDefaults(raw: unknown): unknown {
  if (typeof raw !== 'object' || raw === null) return raw;
  const providers = (raw as { providers?: unknown }).providers;
  if (typeof providers !== 'object' || providers === null || Array.isArray(providers)) return raw;
  const merged: Record<string, unknown> = {};
  for (const [id, entry] of Object.entries(providers)) {
    const base = BUILTIN_RAW[id];
    merged[id] =
      base && typeof entry === 'object' && entry !== null && !Array.isArray(entry) ? { ...base, ...entry } : entry;
  }
  return { ...raw, providers: merged };
}

/** PR5: default stream idle of native providers, in ms (300 s). */
export const NATIVE_STREAM_IDLE_MS = 300_000;

/**
 * The stream idle deadline of native (catalog) providers, in ms:
 * `ZUNO_STREAM_IDLE_TIMEOUT_SECS` when set, else {@link NATIVE_STREAM_IDLE_MS}.
 * @throws ZunoError `config_invalid` naming the variable when it is not a positive integer.
 */
export function nativeStreamIdleMs(env: NodeJS.ProcessEnv = process.env): number {
  const raw = env.ZUNO_STREAM_IDLE_TIMEOUT_SECS;
  if (raw === undefined || raw === '') return NATIVE_STREAM_IDLE_MS;
  if (!/^[1-9][0-9]{0,6}$/.test(raw.trim())) {
    throw new ZunoError(
      'config_invalid',
      `ZUNO_STREAM_IDLE_TIMEOUT_SECS must be a positive whole number of seconds (got "${raw.slice(0, 40)}")`,
    );
  }
  return Number(raw.trim()) * 1000;
}

/**
 * Loads `zuno.json`: `explicitPath`, else `$ZUNO_CONFIG`, else `<dir>/zuno.json`
 * when it exists, else an empty config.
 * @throws ZunoError `config_invalid` naming the file and each bad or unknown key; `config_missing` for an explicit path that cannot be read.
 */
export function loadZunoConfig(dir: string, explicitPath?: string): ZunoConfig {
  const chosen = explicitPath ?? process.env.ZUNO_CONFIG;
  // An explicit path is relative to where the command runs; the default file lives in the workspace.
  const path = chosen !== undefined ? resolve(chosen) : resolve(dir, 'zuno.json');
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
  const parsed = ZunoConfigSchema.safeParse(withCatalogDefaults(raw));
  if (!parsed.success) throw new ZunoError('config_invalid', `${path}: ${formatZodIssues(parsed.error)}`);
  // Routes that cannot work (e.g. encrypted replay on a Chat model) are refused now, for every model named.
  for (const [id, p] of Object.entries(parsed.data.providers)) {
    for (const model of [undefined, ...Object.keys(p.models)]) {
      try {
        toProviderConfig(id, p, model);
      } catch (err) {
        if (err instanceof ZunoError) throw new ZunoError(err.code, `${path}: ${err.message}`);
        throw err;
      }
    }
  }
  return parsed.data;
}

/**
 * The permission policy of a workspace (PM, TD2, TD7; docs/permissions.md):
 * `zuno.json` `permission`, found like {@link loadZunoConfig} finds the file.
 * Default (no file, no `permission` key): mode `standard`, no rules.
 * @throws ZunoError `config_invalid` naming the file and each bad key (e.g.
 *   `permission.rules.shel: unknown tool "shel" …`); `config_missing` as loadZunoConfig.
 */
export function loadPermissionPolicy(dir: string, explicitPath?: string): PermissionPolicy {
  return loadZunoConfig(dir, explicitPath).permission;
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
  const configured = cfg.providers[id];
  const builtin = BUILTIN_PROVIDERS[id];
  // PR5: a catalog (native) provider idles up to 300 s between chunks, or ZUNO_STREAM_IDLE_TIMEOUT_SECS.
  const p = configured ?? (builtin ? { ...builtin, chunk_timeout_ms: nativeStreamIdleMs() } : undefined);
  if (!p) {
    const known = [...new Set([...Object.keys(cfg.providers), ...Object.keys(BUILTIN_PROVIDERS)])].join(', ');
    throw new ZunoError(
      'provider_unknown',
      `unknown provider "${id}" (configured: ${known}); add it to zuno.json providers`,
    );
  }
  return { provider: toProviderConfig(id, p, model), model };
}

/**
 * Converts a validated provider entry into the frozen runtime shape for one
 * model: the wire surface resolved by PR7 precedence, the PR8 replay option.
 * @throws ZunoError `config_invalid` when `reasoning_replay: "encrypted"` is
 *   asked of a route that cannot carry capsules (it does not resolve to
 *   Responses), naming the provider (and model).
 */
export function toProviderConfig(id: string, p: ProviderEntry, model?: string): ProviderConfig {
  const perModel = model !== undefined ? p.models[model] : undefined;
  const family = p.transport === 'anthropic' ? 'anthropic' : 'openai';
  const surface = resolveSurface({
    providerId: id,
    family,
    ...(p.transport === 'chat-completions'
      ? { specSurface: 'chat' as const }
      : p.surface
        ? { specSurface: p.surface }
        : {}),
    ...(perModel?.surface ? { modelSurface: perModel.surface } : {}),
  });
  const replay = perModel?.reasoning_replay ?? p.reasoning_replay;
  const thinking = perModel?.thinking_budget_tokens ?? p.thinking_budget_tokens;
  if (replay === 'encrypted' && surface !== 'responses') {
    const where = perModel?.reasoning_replay ? `providers.${id}.models.${model}` : `providers.${id}`;
    throw new ZunoError(
      'config_invalid',
      `${where}.reasoning_replay: "encrypted" needs the Responses surface, but ${id}/${model ?? '*'} resolves to ${surface}`,
    );
  }
  return {
    id,
    transport: surface,
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
    ...(replay === 'encrypted'
      ? { reasoningReplay: replay, reasoningReplayMaxAgeMs: p.reasoning_replay_max_age_ms }
      : {}),
    ...(thinking !== undefined ? { thinkingBudgetTokens: thinking } : {}),
  };
}

/**
 * The provider entry for the built-in local provider server at `baseUrl`
 * (used by `--script`), on the given surface (default Chat Completions).
 */
export function localProvider(
  baseUrl: string,
  surface: ProviderConfig['transport'] = 'chat-completions',
  reasoningReplay: 'off' | 'encrypted' = 'off',
): ProviderConfig {
  const entry = ProviderSchema.parse({
    base_url: baseUrl,
    transport: surface === 'anthropic-messages' ? 'anthropic' : 'openai',
    ...(surface === 'responses' ? { surface: 'responses' } : {}),
    reasoning_replay: reasoningReplay,
  });
  return toProviderConfig('local', entry);
}
