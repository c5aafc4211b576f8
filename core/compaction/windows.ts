/**
 * Context windows (SPEC CP6, CP7; docs/compaction.md "Context windows"): the
 * built-in table of the models Zuno knows, zuno.json `models` entries, and
 * the output reserve — the tokens kept free for the answer. Pure and
 * deterministic (workflows may import it).
 */
import type { ContextWindow } from './settings.js';

/** A built-in table entry: the model's context window and its largest output, in tokens. */
export interface KnownModel {
  windowTokens: number;
  maxOutputTokens: number;
}

/** A zuno.json `models["<provider>/<model>"]` entry, validated (client/compaction-config.ts). */
export interface ConfiguredWindow {
  contextWindow: number;
  /** Absent: the built-in model's reserve, else {@link defaultOutputReserve}. */
  outputReserve?: number;
}

/**
 * Output reserve cap, in tokens: a request leaves min(model max output,
 * 32 000) free for the answer (docs/compaction.md says why: Zuno asks for
 * at most 8 192 tokens on Anthropic and sets no limit on OpenAI, so a full
 * 128 000-token reserve would waste a third of a gpt-5 window).
 */
export const OUTPUT_RESERVE_CAP = 32_000;

/** OpenAI models by their vendor id (platform.openai.com model pages). */
const OPENAI: Readonly<Record<string, KnownModel>> = {
  'gpt-4.1': { windowTokens: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4.1-mini': { windowTokens: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4.1-nano': { windowTokens: 1_047_576, maxOutputTokens: 32_768 },
  'gpt-4o': { windowTokens: 128_000, maxOutputTokens: 16_384 },
  'gpt-4o-mini': { windowTokens: 128_000, maxOutputTokens: 16_384 },
  'gpt-5': { windowTokens: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-mini': { windowTokens: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-nano': { windowTokens: 400_000, maxOutputTokens: 128_000 },
  'gpt-5-codex': { windowTokens: 400_000, maxOutputTokens: 128_000 },
  'gpt-5.1': { windowTokens: 400_000, maxOutputTokens: 128_000 },
  'gpt-5.1-codex': { windowTokens: 400_000, maxOutputTokens: 128_000 },
  o3: { windowTokens: 200_000, maxOutputTokens: 100_000 },
  'o3-mini': { windowTokens: 200_000, maxOutputTokens: 100_000 },
  'o4-mini': { windowTokens: 200_000, maxOutputTokens: 100_000 },
};

/** Anthropic models by their vendor id (docs.anthropic.com models overview). */
const ANTHROPIC: Readonly<Record<string, KnownModel>> = {
  'claude-sonnet-4': { windowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4-0': { windowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-sonnet-4-5': { windowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-opus-4': { windowTokens: 200_000, maxOutputTokens: 32_000 },
  'claude-opus-4-0': { windowTokens: 200_000, maxOutputTokens: 32_000 },
  'claude-opus-4-1': { windowTokens: 200_000, maxOutputTokens: 32_000 },
  'claude-haiku-4-5': { windowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-3-7-sonnet': { windowTokens: 200_000, maxOutputTokens: 64_000 },
  'claude-3-5-sonnet': { windowTokens: 200_000, maxOutputTokens: 8_192 },
  'claude-3-5-haiku': { windowTokens: 200_000, maxOutputTokens: 8_192 },
};

/** The vendor table each catalog provider serves; any other provider id has no built-in window. */
const TABLES: Readonly<Record<string, Readonly<Record<string, KnownModel>>>> = {
  openai: OPENAI,
  anthropic: ANTHROPIC,
};

/** A dated or `-latest` suffix of a vendor model id (`-2025-04-14`, `-20250514`, `-latest`). */
const DATED_SUFFIX = /-(\d{4}-\d{2}-\d{2}|\d{8}|latest)$/;

/**
 * The built-in entry of `model` served by `providerId`, or null. `openai`
 * and `anthropic` look in their vendor's table; `openrouter` reads
 * `<vendor>/<model>` ids of those two vendors. Other providers (local
 * servers, gateways, `zuno-local` scripts) have none: the same name may be
 * served with another window (a vLLM `max-model-len`, an Azure deployment).
 * Ids match exactly, then without a dated suffix (`gpt-4.1-2025-04-14` →
 * `gpt-4.1`, `claude-sonnet-4-20250514` → `claude-sonnet-4`). Pure.
 */
export function knownModel(providerId: string, model: string): KnownModel | null {
  let table = TABLES[providerId];
  let id = model;
  if (providerId === 'openrouter') {
    const slash = model.indexOf('/');
    table = slash > 0 ? TABLES[model.slice(0, slash)] : undefined;
    id = model.slice(slash + 1);
  }
  if (!table) return null;
  if (Object.hasOwn(table, id)) return table[id]!;
  const undated = id.replace(DATED_SUFFIX, '');
  return undated !== id && Object.hasOwn(table, undated) ? table[undated]! : null;
}

/**
 * The output reserve of a model whose largest output Zuno does not know
 * (a configured window without `output_reserve`): a quarter of the window,
 * at most {@link OUTPUT_RESERVE_CAP}. Tokens.
 */
export function defaultOutputReserve(windowTokens: number): number {
  return Math.min(OUTPUT_RESERVE_CAP, Math.floor(windowTokens / 4));
}

/** The reserve of a built-in model: min(its max output, {@link OUTPUT_RESERVE_CAP}). */
function builtinReserve(m: KnownModel): number {
  return Math.min(m.maxOutputTokens, OUTPUT_RESERVE_CAP);
}

/**
 * The context window Zuno accounts with for `providerId`/`model` (CP6):
 * zuno.json `models["<provider>/<model>"]` first (exact key, then the key
 * without a dated suffix), else the built-in table ({@link knownModel}),
 * else null — unknown: no proactive compaction. A configured window with no
 * `outputReserve` takes the built-in model's reserve when the model is
 * known, else {@link defaultOutputReserve}; a reserve that would leave no
 * usable tokens is clamped to `windowTokens − 1`. Pure.
 */
export function contextWindowFor(
  providerId: string,
  model: string,
  configured?: Readonly<Record<string, ConfiguredWindow>>,
): ContextWindow | null {
  const builtin = knownModel(providerId, model);
  const key = `${providerId}/${model}`;
  const undatedKey = `${providerId}/${model.replace(DATED_SUFFIX, '')}`;
  const cfg = configured
    ? Object.hasOwn(configured, key)
      ? configured[key]
      : Object.hasOwn(configured, undatedKey)
        ? configured[undatedKey]
        : undefined
    : undefined;
  if (cfg) {
    const reserve = cfg.outputReserve ?? (builtin ? builtinReserve(builtin) : defaultOutputReserve(cfg.contextWindow));
    return {
      windowTokens: cfg.contextWindow,
      outputReserveTokens: Math.min(reserve, cfg.contextWindow - 1),
      source: 'config',
    };
  }
  if (!builtin) return null;
  return { windowTokens: builtin.windowTokens, outputReserveTokens: builtinReserve(builtin), source: 'builtin' };
}

/** Tokens a request may fill: `windowTokens − outputReserveTokens` (at least 1). */
export function usableTokens(w: ContextWindow): number {
  return Math.max(1, w.windowTokens - w.outputReserveTokens);
}
