/**
 * The model-visible text of a shell result: a status line (uncertain
 * outcomes say so first, SH5), the addressable receipt line
 * `[verification rcp_…]` (SH3), its limitations, written paths (SH7), then
 * the output or the withheld-output notice (TD9).
 */
import { timedOutWords } from '../../../core/tools/shell.js';
import { COOPERATIVE_WINDOW_MS, type CommandStatus } from './guard-run.js';
import type { RunEnding } from './receipt.js';
import type { SandboxPlan } from './sandbox.js';
import { sandboxLine, sandboxTag } from './sandbox-words.js';
import type { VerificationReceipt } from './types.js';

function observed(status: CommandStatus | null): string {
  if (!status) return 'no exit status was reported';
  if (status.kind === 'signaled') return `it ended by ${status.signal}`;
  return `its recorded exit status (${status.code}) proves nothing`;
}

/** First line: what happened, in words the next step can act on. */
export function statusLine(ending: RunEnding, timeoutMs: number): string {
  switch (ending.kind) {
    case 'exited':
      return ending.cancelledAfterExit
        ? `Command had already exited with code ${ending.code} when the call was cancelled; its own status stands.`
        : `Command exited with code ${ending.code}.`;
    case 'not_started':
      return ending.code === 127
        ? 'Exit 127: the program was not found, so nothing ran (no verdict).'
        : 'Exit 126: the program could not be executed, so nothing ran (no verdict).';
    case 'signaled':
      return `Command was killed by a signal (${ending.signal}); it has no exit code and no verdict.`;
    case 'guard_failed':
      return `UNCERTAIN: the shell guard failed (exit ${ending.code}); whether the command ran and what it changed is unknown. Inspect the state it would have changed first. It will not be re-run.`;
    case 'guard_lost':
      return 'UNCERTAIN: the shell guard ended without reporting how the command ended; what it changed is unknown. Inspect the state it would have changed first. It will not be re-run.';
    case 'stopped': {
      const how =
        ending.stop.mode === 'forced'
          ? `stopped with SIGKILL after the ${COOPERATIVE_WINDOW_MS / 1000} s window`
          : 'stopped with SIGTERM';
      const why =
        ending.stop.reason === 'timeout'
          ? `the command ${timedOutWords(timeoutMs)} and was ${how}`
          : `the call was cancelled while the command was still running; it was ${how}`;
      return `UNCERTAIN: ${why}; ${observed(ending.observed)}. It reached no verdict and what it changed is unknown: inspect state first, then decide whether to run it again.`;
    }
  }
}

/**
 * The receipt line, e.g. `[verification rcp_…] failed · exit 1 · authoritative (bash, pipefail) · sandbox
 * bubblewrap workspace-write, network allowed` (the sandbox tag when the receipt records one, SH10).
 */
export function receiptLine(r: VerificationReceipt): string {
  const code = r.exitCode !== undefined ? `exit ${r.exitCode}` : r.signal ? `signal ${r.signal}` : 'no exit code';
  const authority = r.authority === 'none' ? 'no authority' : r.authority;
  const cancelled = r.cancelled ? ' · cancelled' : '';
  const sandbox = r.sandbox ? ` · ${sandboxTag(r.sandbox)}` : '';
  return `[verification ${r.id}] ${r.verdict} · ${code} · ${authority} (${r.interpreter}, ${r.exitPolicy})${cancelled}${sandbox}`;
}

/** Assembles the whole model-visible text. */
export function renderResult(parts: {
  ending: RunEnding;
  receipt: VerificationReceipt;
  timeoutMs: number;
  writtenPaths: string[];
  body: string;
  /** How the run was confined: adds the `Sandbox: …` line after the receipt. */
  sandbox?: SandboxPlan;
}): string {
  const lines = [statusLine(parts.ending, parts.timeoutMs), receiptLine(parts.receipt)];
  if (parts.sandbox) lines.push(sandboxLine(parts.sandbox));
  for (const l of parts.receipt.limitations) lines.push(`Limitation (${l.kind}): ${l.note} Remedy: ${l.remedy}`);
  if (parts.writtenPaths.length > 0) lines.push(`Written: ${parts.writtenPaths.join(', ')}`);
  return `${lines.join('\n')}\n\n${parts.body}`;
}
