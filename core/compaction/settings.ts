/**
 * The context window of a model and the `compaction` settings of zuno.json
 * (SPEC CP7, CP12), as a session's meta carries them. No imports: the
 * session meta and the compaction contract both read this file.
 */

/**
 * A model's context window as Zuno accounts for it. `usable` =
 * `windowTokens − outputReserveTokens` is what a request may fill.
 * `source`: `config` (zuno.json `models`), `builtin` (the table in
 * core/compaction/windows.ts).
 */
export interface ContextWindow {
  windowTokens: number;
  outputReserveTokens: number;
  source: 'config' | 'builtin';
}

/**
 * zuno.json `compaction` (CP7, CP12; SEED-GAP defaults decided in docs/compaction.md).
 * `auto: false` turns off only the proactive threshold check (CP7).
 */
export interface CompactionSettings {
  auto: boolean;
  /** Fraction of the usable window at which a request is compacted first (0 < f ≤ 1). */
  threshold: number;
  /** Tokens of the most recent conversation kept verbatim after a compaction (the retained zone). */
  retainedTokens: number;
  /** The summary request's deadline, in seconds (CP12). */
  timeoutSeconds: number;
  /** The largest summary accepted, in UTF-8 bytes (CP12). */
  maxSummaryBytes: number;
}

/**
 * `meta` with its context window changed along with its model (a resume on
 * another model, issue 28): `undefined` keeps it, `null` removes it (the new
 * model's window is unknown), a window replaces it. Pure.
 */
export function withContext<T extends { context?: ContextWindow }>(
  meta: T,
  context: ContextWindow | null | undefined,
): T {
  if (context === undefined) return meta;
  const { context: _old, ...rest } = meta;
  void _old;
  return (context === null ? rest : { ...rest, context }) as T;
}

/** The largest share of the usable window the retained zone may take (OpenCode keeps a tail of 25 %). */
export const RETAINED_SHARE_MAX = 0.25;

/**
 * The retained zone of a session in tokens: `compaction.retainedTokens`,
 * capped at {@link RETAINED_SHARE_MAX} of the usable window when the window
 * is known — with a small window an absolute zone left room for only a turn
 * or two before the next compaction (bench/compaction-soak.ts at 12 000). Pure.
 */
export function retainedTokensOf(meta: { context?: ContextWindow; compaction?: CompactionSettings }): number {
  const configured = (meta.compaction ?? COMPACTION_DEFAULTS).retainedTokens;
  const w = meta.context;
  if (!w) return configured;
  const usable = Math.max(1, w.windowTokens - w.outputReserveTokens);
  return Math.max(1, Math.min(configured, Math.floor(usable * RETAINED_SHARE_MAX)));
}

/** Defaults of {@link CompactionSettings} (docs/compaction.md says why). */
export const COMPACTION_DEFAULTS: CompactionSettings = {
  auto: true,
  threshold: 0.8,
  retainedTokens: 6_000,
  timeoutSeconds: 120,
  maxSummaryBytes: 32_768,
};
