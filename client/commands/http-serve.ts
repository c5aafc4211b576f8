/**
 * `zuno serve [--port N] [--host H] [--script FILE] [--print-token]` (issue
 * 29 item 2, SF6): the HTTP API and SSE streams of Zuno's home. It listens
 * on loopback (127.0.0.1) unless another host is asked for, which is then
 * printed as a warning; every request needs the home's token
 * ($ZUNO_HOME/http-token, mode 0600). Sessions are served by the host
 * worker service, never by this process (SF1, SF9): stopping it strands
 * nothing — except sessions on a `--script` model, whose replies this
 * process serves. Not to be confused with client/serve.ts (the workers).
 */
import { loadScript } from '../../local-provider/script.js';
import { buildApp } from '../http/app.js';
import { isLoopback, listen } from '../http/server.js';
import { loadOrCreateToken, tokenPath } from '../http/token.js';
import { resolvePaths } from '../context.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { openSurfaceHost } from '../surface/index.js';

/** The port `zuno serve` listens on without `--port` ("zuno" on a phone keypad is 9866). */
export const DEFAULT_HTTP_PORT = 9866;

/** The loopback host `zuno serve` listens on without `--host`. */
export const DEFAULT_HTTP_HOST = '127.0.0.1';

/** Options of `zuno serve`. */
export interface HttpServeOptions {
  port?: number;
  host?: string;
  script?: string;
  printToken?: boolean;
}

/**
 * Runs the server until SIGINT or SIGTERM (exit 0), printing
 * `zuno serve: listening on http://HOST:PORT` on stderr once it accepts
 * requests. `--print-token` prints the token (creating it) and exits.
 * @throws ZunoError `config_invalid` (a token file others can read),
 *   `script_invalid`, `port_unavailable`, and what opening the surface throws
 *   (`temporal_unreachable`, …).
 */
export async function httpServeCommand(opts: HttpServeOptions, sink: Sink = processSink): Promise<number> {
  const paths = resolvePaths();
  const token = loadOrCreateToken(paths.home);
  if (opts.printToken) {
    sink.out(`${token}\n`);
    return 0;
  }
  const hostName = opts.host ?? DEFAULT_HTTP_HOST;
  const script = opts.script !== undefined ? await loadScript(opts.script) : undefined;
  const log = (line: string): void => sink.err(`${line}\n`);
  const host = await openSurfaceHost({ command: 'zuno serve', notify: log });
  const stop = new AbortController();
  try {
    const app = buildApp({ host, log, shutdown: stop.signal, ...(script ? { script } : {}) }, token);
    const server = await listen(app, hostName, opts.port ?? DEFAULT_HTTP_PORT);
    if (!isLoopback(hostName))
      log(
        `zuno serve: warning: listening on ${hostName}, which is not loopback: anyone who can reach it and has the token can drive this home's sessions`,
      );
    log(`zuno serve: listening on ${server.url} (token: ${tokenPath(paths.home)}; zuno serve --print-token)`);
    await stopped();
    stop.abort();
    await server.close();
  } finally {
    stop.abort();
    await host.close();
  }
  return 0;
}

/** Resolves at the first SIGINT or SIGTERM. */
function stopped(): Promise<void> {
  return new Promise((resolve) => {
    const done = (): void => {
      process.off('SIGINT', done);
      process.off('SIGTERM', done);
      resolve();
    };
    process.on('SIGINT', done);
    process.on('SIGTERM', done);
  });
}
