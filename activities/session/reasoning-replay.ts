/**
 * PR8 reasoning replay policy, applied when a request is assembled (never
 * when rows are written: the stored capsule stays, so switching back to the
 * producing model restores replay).
 */
import type { AssistantPart, ModelMessage, ProviderReasoning, WireSurface } from '../../core/messages.js';
import { DEFAULT_REASONING_REPLAY_MAX_AGE_MS, type ProviderConfig } from '../../core/provider-config.js';

/** Counts recorded on each `session.provider.request` event (PR8). */
export interface ReplayCounts {
  reasoningReplay: 'off' | 'encrypted';
  /** Capsules the adapter puts on the wire in this request. */
  replayedReasoningCapsules: number;
  /**
   * Reasoning parts kept back: a capsule for another provider/model/surface,
   * too old, with replay off, or with no output after it; and a reasoning
   * part without any capsule, which no surface can replay. Every reasoning
   * part of the request is counted here or in `replayedReasoningCapsules`.
   */
  withheldReasoningCapsules: number;
  /** Always 0: Zuno has no prompt receipts to rebuild boundaries from (no Goal continuation yet). */
  restoredReasoningReplayBoundaries: number;
  /** Always 0 for the same reason: no boundary is ever ambiguous without receipts. */
  withheldAmbiguousReasoningCapsules: number;
}

/** The request a replay decision is for. */
export interface ReplayTarget {
  provider: ProviderConfig;
  model: string;
  nowMs: number;
}

/** true when a capsule may go to this target at all (surface, option, provider, model, age). */
function eligible(c: ProviderReasoning, t: ReplayTarget): boolean {
  const surface: WireSurface = t.provider.transport;
  if (c.surface !== surface || c.provider !== t.provider.id || c.model !== t.model) return false;
  if (surface === 'responses') {
    if (t.provider.reasoningReplay !== 'encrypted' || c.encryptedContent === undefined) return false;
    const maxAge = t.provider.reasoningReplayMaxAgeMs ?? DEFAULT_REASONING_REPLAY_MAX_AGE_MS;
    return t.nowMs - c.producedAtMs <= maxAge;
  }
  // Anthropic thinking is replayed unchanged to the model that signed it.
  return surface === 'anthropic-messages' && (c.signature !== undefined || c.redactedData !== undefined);
}

/**
 * Decides, per assistant message, which reasoning capsules the request
 * carries: a capsule goes on the wire only to the provider, model and
 * surface that produced it, on Responses only with `reasoning_replay:
 * "encrypted"` and within `reasoning_replay_max_age_ms`, and only when some
 * output (text or a tool call) follows it in the same message — a capsule
 * with nothing after it is withheld. A withheld capsule's part loses its
 * `providerReasoning` (adapters then drop or downgrade the part). A reasoning
 * part that has no capsule at all is never replayed either (the adapters drop
 * it) and is counted as withheld too. Order and every other part are
 * untouched. Pure.
 * @returns the messages to send and the counts for the request event.
 */
export function applyReasoningReplay(
  messages: ModelMessage[],
  target: ReplayTarget,
): { messages: ModelMessage[]; counts: ReplayCounts } {
  const counts: ReplayCounts = {
    reasoningReplay: target.provider.reasoningReplay ?? 'off',
    replayedReasoningCapsules: 0,
    withheldReasoningCapsules: 0,
    restoredReasoningReplayBoundaries: 0,
    withheldAmbiguousReasoningCapsules: 0,
  };
  const out = messages.map((m): ModelMessage => {
    if (m.role !== 'assistant' || !m.parts) return m;
    const parts = m.parts.map((p, i): AssistantPart => {
      if (p.kind !== 'reasoning') return p;
      if (!p.providerReasoning) {
        // No capsule: no adapter puts it on the wire (Responses drops it, Anthropic sends no unsigned thinking).
        counts.withheldReasoningCapsules += 1;
        return p;
      }
      const followed = m.parts!.slice(i + 1).some((q) => q.kind !== 'reasoning');
      if (followed && eligible(p.providerReasoning, target)) {
        counts.replayedReasoningCapsules += 1;
        return p;
      }
      counts.withheldReasoningCapsules += 1;
      return { kind: 'reasoning', text: p.text };
    });
    return { ...m, parts };
  });
  return { messages: out, counts };
}
