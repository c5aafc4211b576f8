/**
 * The request of a model step, assembled (SE9, SE28): the system segments
 * in their order — the base prompt, the agent role's, the turn's rule files
 * (SE27), the Goal (GL19/GL20), the work state (GP32) — before the
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
import { DEFAULT_AGENT_NAME, rolePrompt } from '../../core/agents.js';
import { roleOf } from '../../core/delegation/contract.js';
import { GOAL_SEGMENT_ID, renderGoalContext } from '../../core/goal/context.js';
import type { ModelMessage } from '../../core/messages.js';
import type { ModelStepInput } from '../../core/session/activities.js';
import type { ProjectionStore } from '../projection/types.js';
import { adapterFor, type StreamModel } from './provider-call.js';
import { elideOldToolOutputs } from './compaction/elide.js';
import { BASE_SEGMENT_ID, systemMessages, systemPrompt } from './prompt.js';
import { applyReasoningReplay, type ReplayCounts } from './reasoning-replay.js';
import { TurnRules } from './rules-turn.js';
import { workStateSegment } from './work-state-segment.js';

/** Segment id of the agent role's prompt (SE28), present for every role but `build`. */
const AGENT_SEGMENT_ID = 'system.agent';

/** A request ready to send. */
export interface AssembledRequest {
  /** The adapter of the provider's surface. */
  stream: StreamModel;
  messages: ModelMessage[];
  /** PR8 counters recorded on `session.provider.request`. */
  counts: ReplayCounts;
}

/** Assembles model-step requests for one worker (it remembers each session's rules for the turn). */
export class RequestAssembler {
  private readonly rules: TurnRules;

  constructor(private readonly store: ProjectionStore) {
    this.rules = new TurnRules(store);
  }

  /**
   * The request of one step: the provider surface, the system segments
   * (base, role, the turn's rules — SE27, the Goal — GL19/GL20, the work
   * state — GP32, then `extra`: the step's MCP state, MC8) before `conversation`, with old long tool outputs elided
   * (compaction/elide.ts) and PR8's reasoning replay applied.
   * @throws ApplicationFailure `provider_config` for a surface this build
   *   cannot speak; `rule_file_unreadable` (rules-turn.ts).
   */
  async assemble(
    input: ModelStepInput,
    conversation: ModelMessage[],
    nowMs: number,
    extra: readonly { segment: string; text: string }[] = [],
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
    const ruleSegment = await this.rules.of({
      sessionId: meta.sessionId,
      workspace: meta.workspace,
      turn,
      atMs: nowMs,
    });
    // GL19/GL20: a Goal-bound session's requests carry the Goal as runtime context, regenerated every request.
    const goal = meta.goal ? await this.store.getGoal(meta.goal.goalId) : null;
    // GP32: the current Plan/Todo, regenerated from the committed projection for every request.
    const work = await workStateSegment(this.store, meta.sessionId);
    const system = [
      { segment: BASE_SEGMENT_ID, text: systemPrompt(meta.workspace) },
      ...(meta.agent && meta.agent !== DEFAULT_AGENT_NAME
        ? [{ segment: AGENT_SEGMENT_ID, text: rolePrompt(roleOf(meta)) }]
        : []),
      ...(ruleSegment ? [ruleSegment] : []),
      ...(goal ? [{ segment: GOAL_SEGMENT_ID, text: renderGoalContext(goal.snapshot, input.continuation) }] : []),
      ...(work ? [work] : []),
      // Issue 30 (MC8): the MCP servers' state, from the step's offer.
      ...extra,
    ];
    // Issue 28 item 5: long tool outputs older than the retained zone ride as head, tail and a reference.
    const retained = retainedTokensOf(meta);
    const recent = elideOldToolOutputs(conversation, retained).messages;
    // PR8: which reasoning capsules this request may carry is decided now, at assembly.
    const replay = applyReasoningReplay([...systemMessages(system), ...recent], {
      provider: meta.provider,
      model: meta.model,
      nowMs,
    });
    return {
      stream,
      messages: replay.messages,
      counts: replay.counts,
    };
  }
}
