/**
 * `zuno dev provider --script FILE [--port N]`: serve a script on loopback
 * until interrupted, over the Chat Completions, Responses and Anthropic
 * Messages wire formats (whichever route a client calls).
 */
import { startLocalProvider } from './server.js';

/** Options of {@link serveScriptCommand}. */
export interface ServeScriptOptions {
  /** TCP port; default 0 / undefined = any free port. */
  port?: number;
  /** Interface; default `127.0.0.1`. */
  host?: string;
  /** Stops the server like SIGINT would (for embedding and tests). */
  signal?: AbortSignal;
  /** Where the base URL line goes; default `process.stdout`. */
  stdout?: NodeJS.WritableStream;
  /** Where per-request log lines and the stop hint go; default `process.stderr`. */
  stderr?: NodeJS.WritableStream;
}

/**
 * Load the script FILE, start the local provider, print its base URL (one
 * line, e.g. `http://127.0.0.1:41234/v1`) to stdout, log one line per request
 * to stderr, and resolve after SIGINT/SIGTERM (or `opts.signal`) once the
 * server has closed. Signal listeners are removed before resolving.
 *
 * @throws ZunoError `script_invalid` (names the file and key path) before
 *   anything is printed; the listen error (e.g. EADDRINUSE) if the port is taken.
 */
export async function serveScriptCommand(file: string, opts: ServeScriptOptions = {}): Promise<void> {
  const stdout = opts.stdout ?? process.stdout;
  const stderr = opts.stderr ?? process.stderr;
  const startOpts: Parameters<typeof startLocalProvider>[0] = {
    script: file,
    onLog: (line) => stderr.write(`${line}\n`),
  };
  if (opts.port !== undefined && Number.isInteger(opts.port)) startOpts.port = opts.port;
  if (opts.host !== undefined) startOpts.host = opts.host;
  const server = await startLocalProvider(startOpts);
  stdout.write(`${server.url}\n`);
  stderr.write(`zuno local provider serving ${file} at ${server.url} (Ctrl-C to stop)\n`);

  await new Promise<void>((resolve) => {
    const stop = (): void => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      opts.signal?.removeEventListener('abort', stop);
      resolve();
    };
    process.once('SIGINT', stop);
    process.once('SIGTERM', stop);
    if (opts.signal?.aborted) stop();
    else opts.signal?.addEventListener('abort', stop, { once: true });
  });
  await server.close();
  stderr.write(
    `zuno local provider stopped after ${server.requests.length} requests (${server.served} replies served)\n`,
  );
}
