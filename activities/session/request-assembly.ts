/**
 * The request of a model step, assembled (SE9, SE28): the system segments
 * in their order (system/system-segments.ts, docs/prompts.md) before the
 * conversation, with PR8's reasoning replay decided at assembly.
 *
 * Compaction (docs/compaction.md): a compacted session's conversation
 * arrives from transcript-cache.ts already starting with the
 * `runtime.compaction` segment and the anchor user message, so the summary
 * segment lands right after the segments above; long tool outputs older
 * than the retained zone are elided here (compaction/elide.ts).
 */
import { ApplicationFailure } from '@temporalio/activity';
import { retainedTokensOf } from '../../core/compaction/settings.js';
import type { ModelMessage } from '../../core/messages.js';
import type { HostFacts } from '../../core/prompt/environment.js';
import type { PromptSegment } from '../../core/prompt/segments.js';
import type { ModelStepInput } from '../../core/session/activities.js';
import type { ProjectionStore } from '../projection/types.js';
import { adapterFor, type StreamModel } from './provider-call.js';
import { elideOldToolOutputs } from './compaction/elide.js';
import { systemMessages } from './prompt.js';
import { applyReasoningReplay, type ReplayCounts } from './reasoning-replay.js';
import { TurnRules } from './rules-turn.js';
import { hostFacts } from './system/environment-facts.js';
import { systemSegments } from './system/system-segments.js';
import { workStateSegment } from './work-state-segment.js';

/** A request ready to send. */
export interface AssembledRequest {
  /** The adapter of the provider's surface. */
  stream: StreamModel;
  messages: ModelMessage[];
  /** The system segments in order, with provenance (SE28), for the prompt receipt. */
  segments: PromptSegment[];
  /** PR8 counters recorded on `session.provider.request`. */
  counts: ReplayCounts;
}

/** What the step offers, beside the conversation. */
export interface StepOffer {
  /** The tool names the request offers, in order (RT8: `runtime.execution` is generated from them). */
  offered: readonly string[];
  /** The step's extra segments (MCP state, MC8). */
  extra?: readonly { segment: string; text: string }[];
}

/** Sessions whose turn's host facts one worker remembers. */
const HOST_FACT_SESSIONS = 256;

/** Assembles model-step requests for one worker (it remembers each session's rules and host facts for the turn). */
export class RequestAssembler {
  private readonly rules: TurnRules;
  private readonly hosts = new Map<string, { turn: number; facts: HostFacts }>();

  constructor(private readonly store: ProjectionStore) {
    this.rules = new TurnRules(store);
  }

  /**
   * The request of one step: the provider surface, the system segments
   * (system/system-segments.ts: base, family, role, read-only, execution —
   * RT8 from `offer.offered`, environment, a seat's task context, the
   * turn's rules — SE27, Goal mode and the Goal — GL19/GL20, the work state
   * — GP32, then `offer.extra`: the step's MCP state, MC8) before
   * `conversation`, with old long tool outputs elided (compaction/elide.ts)
   * and PR8's reasoning replay applied.
   * @throws ApplicationFailure `provider_config` for a surface this build
   *   cannot speak; `rule_file_unreadable` (rules-turn.ts).
   */
  async assemble(
    input: ModelStepInput,
    conversation: ModelMessage[],
    nowMs: number,
    offer: StepOffer,
  ): Promise<AssembledRequest> {
    const { meta, turn } = input;
    const stream = adapterFor(meta.provider.transport);
    if (!stream) {
      throw ApplicationFailure.nonRetryable(
        `provider ${meta.provider.id} resolves to the ${meta.provider.transport} surface, which this build cannot speak`,
        'provider_config',
      );
    }
    // SE27: the rule files of this turn, read at its first request (a file Zuno cannot read stops the turn here).
    const rules = await this.rules.of({ sessionId: meta.sessionId, workspace: meta.workspace, turn, atMs: nowMs });
    // GL19/GL20: a Goal-bound session's requests carry the Goal as runtime context, regenerated every request.
    const goal = meta.goal ? await this.store.getGoal(meta.goal.goalId) : null;
    const segments = systemSegments({
      meta,
      offered: offer.offered,
      host: await this.hostOf(meta.sessionId, meta.workspace, turn, nowMs),
      rules,
      goal: goal
        ? { snapshot: goal.snapshot, ...(input.continuation ? { continuation: input.continuation } : {}) }
        : null,
      // GP32: the current Plan/Todo, regenerated from the committed projection for every request.
      workState: await workStateSegment(this.store, meta.sessionId),
      ...(offer.extra ? { extra: offer.extra } : {}),
    });
    // Issue 28 item 5: long tool outputs older than the retained zone ride as head, tail and a reference.
    const recent = elideOldToolOutputs(conversation, retainedTokensOf(meta)).messages;
    // PR8: which reasoning capsules this request may carry is decided now, at assembly.
    const replay = applyReasoningReplay([...systemMessages(segments), ...recent], {
      provider: meta.provider,
      model: meta.model,
      nowMs,
    });
    return { stream, messages: replay.messages, segments, counts: replay.counts };
  }

  /** The host facts of the session's turn, gathered at its first request on this worker (a stable prompt prefix). */
  private async hostOf(sessionId: string, workspace: string, turn: number, nowMs: number): Promise<HostFacts> {
    const known = this.hosts.get(sessionId);
    if (known && known.turn === turn) return known.facts;
    const facts = await hostFacts(workspace, nowMs);
    this.hosts.delete(sessionId);
    this.hosts.set(sessionId, { turn, facts });
    if (this.hosts.size > HOST_FACT_SESSIONS) this.hosts.delete(this.hosts.keys().next().value!);
    return facts;
  }
}
