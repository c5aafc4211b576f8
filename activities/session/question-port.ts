import type { Client } from '@temporalio/client';
import { ASK_QUESTION_UPDATE, type AskQuestionReceipt, type AskQuestionRequest } from '../../core/question-contract.js';
import type { QuestionPort } from '../infra/ports.js';
import { sessionWorkflowId } from '../../core/ids.js';

/**
 * Builds the {@link QuestionPort} of one tool call (issue 11 item 5). The
 * Update id is `<sessionId>:<rowId>/<callId>`: a tool activity that runs
 * again sends the same Update and gets the first receipt (Temporal
 * deduplicates Update ids; the workflow also knows the question by its
 * row-derived id `q_<turn>_<step>_<position>`).
 */
export function questionPort(
  client: Client,
  at: { sessionId: string; rowId: string; callId: string; tool: string; turn: number; step: number },
): QuestionPort {
  const handle = client.workflow.getHandle(sessionWorkflowId(at.sessionId));
  const updateId = `${at.sessionId}:${at.rowId}/${at.callId}`;
  return {
    ask(req) {
      const full: AskQuestionRequest = {
        rowId: at.rowId,
        callId: at.callId,
        tool: at.tool,
        turn: at.turn,
        step: at.step,
        ...(req.header ? { header: req.header } : {}),
        items: req.items,
      };
      return handle.executeUpdate<AskQuestionReceipt, [AskQuestionRequest]>(ASK_QUESTION_UPDATE, {
        args: [full],
        updateId,
      });
    },
  };
}
