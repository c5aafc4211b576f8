/** The events a model step records beside its rows (core/events.ts catalogue). */
import { DEFAULT_AGENT_NAME } from '../../core/agents.js';
import { EV } from '../../core/events.js';
import { userMessageId } from '../../core/ids.js';
import type { ModelStepInput } from '../../core/session/activities.js';
import type { ProjectionWrite, StepDeletion } from '../projection/types.js';

/** `step.rollback`: an earlier attempt of this step was rolled back (PR4). */
export function rollbackEvent(
  sessionId: string,
  at: { turn: number; step: number; attempt: number },
  meta: ModelStepInput['meta'],
  rolledBack: StepDeletion,
  atMs: number,
): ProjectionWrite {
  return {
    kind: 'event',
    event: {
      id: `step_${at.turn}_${at.step}:rollback:${at.attempt}`,
      sessionId,
      type: EV.stepRollback,
      data: { ...at, maxAttempts: meta.provider.retry.maxAttempts, discardedParts: rolledBack.assistantParts },
      atMs,
    },
  };
}

/** `turn.started`: what drives the turn, its anchor message and who runs it. */
export function turnStartedEvent(
  sessionId: string,
  turn: number,
  input: ModelStepInput,
  atMs: number,
): ProjectionWrite {
  const { meta } = input;
  return {
    kind: 'event',
    event: {
      id: `turn_${turn}:started`,
      sessionId,
      type: EV.turnStarted,
      data: {
        turn,
        trigger: input.continuation
          ? 'goal_continuation'
          : input.newInputs[0]?.kind === 'report'
            ? 'background_report'
            : 'user_input',
        anchorMessageId: input.newInputs[0] ? userMessageId(input.newInputs[0].inputId) : null,
        agent: meta.agent ?? DEFAULT_AGENT_NAME,
        provider: meta.provider.id,
        model: meta.model,
      },
      atMs,
    },
  };
}

/**
 * The session row a turn's first step writes (ops.ts `sessionTurn`): status
 * `running` with the turn's route, provider, model, agent and delegation
 * link; a stored title, creation time, final text and error stay.
 */
export function sessionTurnWrite(
  input: Pick<ModelStepInput, 'meta'>,
  workflowId: string | undefined,
  atMs: number,
): ProjectionWrite {
  const { meta } = input;
  return {
    kind: 'sessionTurn',
    row: {
      id: meta.sessionId,
      workflowId: workflowId ?? `session/${meta.sessionId}`,
      workspace: meta.workspace,
      provider: meta.provider.id,
      model: meta.model,
      status: 'running',
      title: meta.title ?? null,
      host: meta.route?.host ?? null,
      taskQueue: meta.route?.taskQueue ?? null,
      agent: meta.agent ?? DEFAULT_AGENT_NAME,
      parentSessionId: meta.delegation?.parentSessionId ?? null,
      rootSessionId: meta.delegation?.rootSessionId ?? null,
      depth: meta.delegation?.depth ?? null,
      createdAtMs: atMs,
      updatedAtMs: atMs,
    },
  };
}
