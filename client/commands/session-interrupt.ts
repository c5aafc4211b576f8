import { INTERRUPT_COOPERATIVE_WINDOW_MS, INTERRUPT_FORCE_AFTER_MS } from '../../core/session-contract.js';
import { connectTemporal, resolvePaths } from '../context.js';
import { processSink, type Sink } from '../render.js';
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
    if (opts.json) sink.out(`${JSON.stringify(receipt)}\n`);
    else if (receipt.backgroundCancelled.length > 0)
      sink.out(
        `session ${sessionId}: no turn was running; stopped background task(s) ${receipt.backgroundCancelled.join(', ')}\n`,
      );
    else if (!receipt.interrupted) sink.out(`session ${sessionId} is idle; nothing to interrupt\n`);
    else if (receipt.alreadyRequested)
      sink.out(`session ${sessionId}: turn ${receipt.turn + 1} is already being interrupted\n`);
    else
      sink.out(
        `session ${sessionId}: interrupting turn ${receipt.turn + 1} (${receipt.phase}); running calls get ` +
          `${INTERRUPT_COOPERATIVE_WINDOW_MS / 1000} s to stop and report; what has not reported ${INTERRUPT_FORCE_AFTER_MS / 1000} s later is recorded uncertain\n`,
      );
    return 0;
  } finally {
    await temporal.connection.close();
  }
}
