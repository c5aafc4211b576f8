/**
 * `zuno acp`: an ACP agent on standard input/output (SF4; docs/acp.md). An
 * editor starts it as a child process and speaks newline-delimited
 * JSON-RPC; standard output carries nothing else — notes go to stderr. It
 * ends when standard input closes; the sessions it admitted go on, served
 * by this host's worker service (SF9), and `session/load` picks them up.
 */
import { Readable, Writable } from 'node:stream';
import { ndJsonStream } from '@agentclientprotocol/sdk';
import { ZunoError } from '../../core/errors.js';
import { loadScript } from '../../local-provider/script.js';
import { loadZunoConfig } from '../zuno-config.js';
import { acpAgent } from '../acp/agent.js';
import type { AcpOptions } from '../acp/session-prompt.js';
import { runAgent } from '../agent-option.js';
import { openSurfaceHost } from '../surface/index.js';

/** Options of `zuno acp`. */
export interface AcpCommandOptions {
  script?: string;
  model?: string;
  agent?: string;
  config?: string;
}

/**
 * Keeps standard output for JSON-RPC: `console.log`/`info`/`debug` (a
 * library's stray note) write to stderr from here on.
 */
function guardStdout(): void {
  const toErr = (...args: unknown[]) => console.error(...args);
  console.log = toErr;
  console.info = toErr;
  console.debug = toErr;
}

/**
 * The options as the sessions get them: the script loaded, the model
 * reference and role checked for shape.
 * @throws ZunoError `script_invalid`, `usage_error` (both `--script` and
 *   `--model`, or a model not `provider/model`), `agent_invalid`,
 *   `config_missing` / `config_invalid` (`--config`).
 */
async function sessionOptions(o: AcpCommandOptions): Promise<AcpOptions> {
  if (o.script !== undefined && o.model !== undefined)
    throw new ZunoError('usage_error', '--script and --model both name the model: give one');
  if (o.model !== undefined && !/^[^/\s]+\/\S+$/.test(o.model))
    throw new ZunoError('usage_error', `--model ${o.model}: expected provider/model, e.g. openai/gpt-4.1`);
  if (o.agent !== undefined) runAgent(o.agent, null);
  // An explicit zuno.json is read (and checked) now, not at the first prompt.
  if (o.config !== undefined) loadZunoConfig(process.cwd(), o.config);
  return {
    ...(o.script !== undefined ? { script: await loadScript(o.script) } : {}),
    ...(o.model !== undefined ? { model: o.model } : {}),
    ...(o.agent !== undefined ? { agent: o.agent } : {}),
    ...(o.config !== undefined ? { config: o.config } : {}),
  };
}

/**
 * Serves ACP on stdin/stdout until stdin closes; resolves to exit code 0.
 * @throws ZunoError for a bad option or a failed start (Temporal, the
 *   projection): printed as one `zuno: <code>: …` line on stderr, nothing on stdout.
 */
export async function acpCommand(o: AcpCommandOptions): Promise<number> {
  guardStdout();
  const opts = await sessionOptions(o);
  const host = await openSurfaceHost({
    command: 'zuno acp',
    notify: (line) => process.stderr.write(`zuno acp: ${line.replace(/\n$/, '')}\n`),
  });
  try {
    const stream = ndJsonStream(
      Writable.toWeb(process.stdout) as WritableStream<Uint8Array>,
      Readable.toWeb(process.stdin) as ReadableStream<Uint8Array>,
    );
    const { app, closed } = acpAgent(host, opts);
    app.connect(stream);
    await closed;
    return 0;
  } finally {
    await host.close();
  }
}
