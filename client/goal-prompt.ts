import { createInterface } from 'node:readline/promises';
import { ZunoError } from '../core/errors.js';

/**
 * Asks a person on the terminal to choose, for a Goal paused because a
 * call's outcome is unknown (GL27): **Resume goal** or **Keep paused**.
 * There is no default: an empty answer asks again, and the end of input
 * chooses nothing.
 * @throws ZunoError `usage_error` when no choice was made (nothing changes).
 */
export async function askResumeChoice(
  goalId: string,
  why: string,
  sessionId: string,
  io: { input: NodeJS.ReadableStream; output: NodeJS.WritableStream } = {
    input: process.stdin,
    output: process.stderr,
  },
): Promise<'resume' | 'keep_paused'> {
  const rl = createInterface({ input: io.input, output: io.output, terminal: false });
  const closed = new Promise<null>((r) => rl.once('close', () => r(null)));
  try {
    io.output.write(
      `goal ${goalId} is paused: ${why}\n` +
        `  check what those calls did first: zuno session show ${sessionId}\n` +
        '  1) Resume goal — it goes on (the calls whose outcome is unknown are not run again)\n' +
        '  2) Keep paused — nothing changes\n',
    );
    for (let i = 0; i < 5; i++) {
      const raw = await Promise.race([rl.question('Choose 1 or 2: ').catch(() => null), closed]);
      if (raw === null) break; // the end of input chooses nothing
      const answer = raw.trim().toLowerCase();
      if (answer === '1' || answer === 'resume' || answer === 'resume goal') return 'resume';
      if (answer === '2' || answer === 'keep paused' || answer === 'keep-paused') return 'keep_paused';
    }
  } finally {
    rl.close();
  }
  throw new ZunoError('usage_error', `no choice was made: goal ${goalId} stays paused and nothing was sent`);
}
