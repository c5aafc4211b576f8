import { INTERRUPT_COOPERATIVE_WINDOW_MS, INTERRUPT_FORCE_AFTER_MS } from '../../core/session/interrupt.js';
import type { InterruptReceipt } from '../../core/session/updates.js';
import type { TurnActivity } from '../../core/session/state.js';
import { connectTemporal, resolvePaths } from '../context.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { checkSessionId, interruptSession } from '../session-start.js';

/**
 * `zuno session interrupt <id> [--json]`: hard-interrupts the session's
 * running turn (TD10). Prints what the turn was doing, or that the session
 * was idle; the turn's outcome is then visible in `zuno session show`.
 * @throws ZunoError `session_not_found`, `session_not_running`, `temporal_unreachable`.
 */
export async function sessionInterruptCommand(
  sessionId: string,
  opts: { json?: boolean },
  sink: Sink = processSink,
): Promise<number> {
  checkSessionId(sessionId);
  const temporal = await connectTemporal(resolvePaths(), opts.json ? null : (line) => sink.err(`${line}\n`));
  try {
    const receipt = await interruptSession(temporal.client, sessionId, 'cli:session interrupt');
    sink.out(opts.json ? `${JSON.stringify(receipt)}\n` : describeInterrupt(sessionId, receipt));
    return 0;
  } finally {
    await temporal.connection.close();
  }
}

/** What a turn was doing, in words. */
const DOING: Record<TurnActivity, string> = {
  idle: 'between steps',
  model: 'waiting for the model',
  compacting: 'compacting the conversation',
  tools: 'running tool calls',
  interrupting: 'already stopping',
};

/**
 * The human line `zuno session interrupt` prints for an interrupt receipt,
 * with the turn counted from 1 (the receipt's `turn` is the stored 0-based
 * number, printed as such by `--json`). Pure.
 */
export function describeInterrupt(sessionId: string, receipt: InterruptReceipt): string {
  const turn = `turn ${receipt.turn + 1}`;
  if (receipt.backgroundCancelled.length > 0)
    return `session ${sessionId}: no turn was running; stopped background task(s) ${receipt.backgroundCancelled.join(', ')}\n`;
  if (!receipt.interrupted) return `session ${sessionId} is idle; nothing to interrupt\n`;
  if (receipt.alreadyRequested) return `session ${sessionId}: ${turn} is already being interrupted\n`;
  return (
    `session ${sessionId}: interrupting ${turn} (${DOING[receipt.phase] ?? receipt.phase}); running calls get ` +
    `${INTERRUPT_COOPERATIVE_WINDOW_MS / 1000} s to stop and report; what has not reported ` +
    `${INTERRUPT_FORCE_AFTER_MS / 1000} s later is recorded uncertain\n`
  );
}
