/**
 * What the model sees of a command's output (TD9): inline when it fits both
 * caps, otherwise withheld whole to an artifact with a notice; binary output
 * shown lossily and marked, its exact bytes kept in an artifact.
 */
import { discardCapture, keepAsArtifact, readCapture, type CaptureStats } from './capture.js';
import type { BinaryOutput, WithheldOutput } from './types.js';

/** The text shown for a command that wrote nothing. */
export const NO_OUTPUT = '(no output)';

/** Where the capture file is and what to apply to it. */
export interface PresentInput {
  /** The sealed capture (see ./seal.ts): a private copy no process writes to any more. */
  capturePath: string;
  stats: CaptureStats;
  artifactDir: string;
  sessionId: string;
  callId: string;
  /** TD9 `tool_output.max_bytes`. */
  maxBytes: number;
  /** TD9 `tool_output.max_lines`. */
  maxLines: number;
  /** `accept_large_output: true`: inline whatever the size. */
  acceptLarge: boolean;
}

/** The model-visible body and the typed facts for the tool part. */
export interface PresentedOutput {
  body: string;
  outputPaths: string[];
  withheldOutput?: WithheldOutput;
  binaryOutput?: BinaryOutput;
}

function plural(n: number, word: string): string {
  return `${n} ${word}${n === 1 ? '' : 's'}`;
}

/** The TD9 notice for withheld output. */
export function withheldNotice(w: WithheldOutput, limit: number): string {
  const measured = `${plural(w.bytes, 'byte')} in ${plural(w.lines, 'line')}`;
  const cap =
    w.cap === 'max_bytes' ? `tool_output.max_bytes (${limit} bytes)` : `tool_output.max_lines (${limit} lines)`;
  return [
    `Output withheld: ${measured} exceeds ${cap}. Nothing was truncated or lost.`,
    `Every byte is stored in the artifact ${w.artifactPath} (${plural(w.bytes, 'byte')}).`,
    `Read it back in windows with bg {"action": "artifact", "outputPath": ${JSON.stringify(w.artifactPath)}} — cursor is a byte offset (start 0), limit up to 51200 bytes; each reply gives the next cursor and hasMore.`,
  ].join('\n');
}

/**
 * Decides inline vs withheld and publishes the artifact if one is needed;
 * the temporary capture file is consumed either way.
 */
export async function presentOutput(input: PresentInput): Promise<PresentedOutput> {
  const { stats } = input;
  if (stats.bytes === 0) {
    await discardCapture(input.capturePath);
    return { body: NO_OUTPUT, outputPaths: [] };
  }
  const overBytes = stats.bytes > input.maxBytes;
  const overLines = stats.lines > input.maxLines;
  if ((overBytes || overLines) && !input.acceptLarge) {
    const artifactPath = await keepAsArtifact(input.capturePath, input.artifactDir, input.sessionId, input.callId);
    const withheldOutput: WithheldOutput = {
      bytes: stats.bytes,
      lines: stats.lines,
      cap: overBytes ? 'max_bytes' : 'max_lines',
      artifactPath,
      sha256: stats.sha256,
    };
    return {
      body: withheldNotice(withheldOutput, overBytes ? input.maxBytes : input.maxLines),
      outputPaths: [artifactPath],
      withheldOutput,
    };
  }
  const bytes = await readCapture(input.capturePath);
  if (stats.utf8 && stats.nulBytes === 0) {
    await discardCapture(input.capturePath);
    return { body: bytes.toString('utf8'), outputPaths: [] };
  }
  // Binary: lossy text (invalid sequences and NUL as U+FFFD), exact bytes kept.
  const artifactPath = await keepAsArtifact(input.capturePath, input.artifactDir, input.sessionId, input.callId);
  // eslint-disable-next-line no-control-regex
  const lossy = new TextDecoder('utf-8').decode(bytes).replace(/\u0000/g, '\uFFFD');
  const header = `[binary output: ${plural(stats.bytes, 'byte')} that are not plain UTF-8 text${
    stats.nulBytes > 0 ? ` (${plural(stats.nulBytes, 'NUL byte')})` : ''
  }; undecodable bytes are shown as U+FFFD. The exact bytes are in ${artifactPath}; read them with bg {"action": "artifact", "outputPath": ${JSON.stringify(artifactPath)}}.]`;
  return {
    body: `${header}\n${lossy}`,
    outputPaths: [artifactPath],
    binaryOutput: { artifactPath, nulBytes: stats.nulBytes, sha256: stats.sha256 },
  };
}
