/**
 * The `models` and `compaction` keys of `zuno.json` (SPEC CP6, CP7, CP12;
 * docs/compaction.md "Context windows") and their resolution into the
 * session meta's `context` and `compaction`. Key names are snake_case like
 * the rest of zuno.json (CP12 names `compaction.timeout_seconds` and
 * `compaction.max_summary_bytes`).
 */
import { z } from 'zod';
import { COMPACTION_DEFAULTS, type CompactionSettings, type ContextWindow } from '../core/compaction/settings.js';
import { contextWindowFor, type ConfiguredWindow } from '../core/compaction/windows.js';

/** Tokens: a positive whole number, at most 100 million. */
const positiveTokens = z.number().int().min(1).max(100_000_000);

/** `models["<provider>/<model>"]`: the model's context window and, optionally, the tokens kept for its answer. */
const ModelWindowSchema = z
  .strictObject({
    context_window: positiveTokens,
    output_reserve: z.number().int().min(0).max(100_000_000).optional(),
  })
  .superRefine((m, ctx) => {
    if (m.output_reserve !== undefined && m.output_reserve >= m.context_window) {
      ctx.addIssue({
        code: 'custom',
        path: ['output_reserve'],
        message: `must be less than context_window (${m.context_window})`,
      });
    }
  });

/** zuno.json `models`: keyed `provider/model` exactly as `--model` names it. */
export const ModelsSchema = z.record(z.string(), ModelWindowSchema).superRefine((models, ctx) => {
  for (const key of Object.keys(models)) {
    if (!/^[^/\s]+\/\S+$/.test(key)) {
      ctx.addIssue({ code: 'custom', path: [key], message: 'expected a "provider/model" key, as --model names it' });
    }
  }
});

/** zuno.json `compaction` (CP7, CP12): every key optional; absent keys take {@link COMPACTION_DEFAULTS}. */
export const CompactionSchema = z.strictObject({
  /** CP7: false removes only the proactive threshold check. */
  auto: z.boolean().optional(),
  /** Fraction of the usable window at which a request is compacted first. */
  threshold: z.number().gt(0, 'must be greater than 0').max(1).optional(),
  retained_tokens: positiveTokens.optional(),
  timeout_seconds: z.number().int().min(1).max(3_600).optional(),
  max_summary_bytes: z.number().int().min(1_024).max(1_048_576).optional(),
});

/** Validated zuno.json `models`. */
export type ModelsConfig = z.infer<typeof ModelsSchema>;
/** Validated zuno.json `compaction`. */
export type CompactionConfig = z.infer<typeof CompactionSchema>;

/** `models` in the shape core/compaction/windows.ts reads. */
function configuredWindows(models: ModelsConfig | undefined): Record<string, ConfiguredWindow> {
  const out: Record<string, ConfiguredWindow> = {};
  for (const [key, m] of Object.entries(models ?? {})) {
    out[key] = {
      contextWindow: m.context_window,
      ...(m.output_reserve !== undefined ? { outputReserve: m.output_reserve } : {}),
    };
  }
  return out;
}

/**
 * The meta's `context` and `compaction` for `providerId`/`model` (CP6, CP7):
 * the window from zuno.json `models`, else the built-in table (omitted when
 * unknown), and `compaction` as {@link COMPACTION_DEFAULTS} overridden by
 * the keys zuno.json sets. Pure.
 */
export function sessionCompaction(
  cfg: { models?: ModelsConfig; compaction?: CompactionConfig },
  providerId: string,
  model: string,
): { context?: ContextWindow; compaction: CompactionSettings } {
  const c = cfg.compaction ?? {};
  const compaction: CompactionSettings = {
    auto: c.auto ?? COMPACTION_DEFAULTS.auto,
    threshold: c.threshold ?? COMPACTION_DEFAULTS.threshold,
    retainedTokens: c.retained_tokens ?? COMPACTION_DEFAULTS.retainedTokens,
    timeoutSeconds: c.timeout_seconds ?? COMPACTION_DEFAULTS.timeoutSeconds,
    maxSummaryBytes: c.max_summary_bytes ?? COMPACTION_DEFAULTS.maxSummaryBytes,
  };
  const context = contextWindowFor(providerId, model, configuredWindows(cfg.models));
  return { ...(context ? { context } : {}), compaction };
}

/**
 * The context window a resumed session's new model has (zuno.json of the
 * workspace, else the built-in table), or null when unknown: sent with the
 * model so compaction measures the model that runs (issue 28).
 */
export function contextForModel(
  cfg: { models?: ModelsConfig; compaction?: CompactionConfig },
  providerId: string,
  model: string,
): ContextWindow | null {
  return sessionCompaction(cfg, providerId, model).context ?? null;
}

/**
 * The one line a command prints when the session's model has no known
 * window (CP6: no proactive compaction), or null when it has one.
 */
export function unknownWindowNote(meta: {
  provider: { id: string };
  model: string;
  context?: ContextWindow;
}): string | null {
  if (meta.context) return null;
  const ref = `${meta.provider.id}/${meta.model}`;
  return `note: no context window known for ${ref} — Zuno will not compact before requests (a provider's context-limit error is still recovered from); set zuno.json models["${ref}"].context_window`;
}

/** Prints {@link unknownWindowNote} through `notify` (a command's stderr; null under `--json`) when it applies. */
export function noteUnknownWindow(
  meta: { provider: { id: string }; model: string; context?: ContextWindow },
  notify: ((line: string) => void) | null,
): void {
  const note = unknownWindowNote(meta);
  if (note) notify?.(note);
}
