/**
 * The listening side of `zuno serve` (issue 29, SF6): the Hono application
 * on Node's HTTP server (@hono/node-server), with at most
 * {@link MAX_CONNECTIONS} connections open at once.
 */
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createAdaptorServer } from '@hono/node-server';
import type { OpenAPIHono } from '@hono/zod-openapi';
import { ZunoError } from '../../core/errors.js';
import { MAX_CONNECTIONS } from './limits.js';

/** A listening server. */
export interface HttpServer {
  /** `http://<host>:<port>` as bound (port 0 resolved). */
  url: string;
  port: number;
  /** Stops accepting, closes every connection (open streams end first through the app's shutdown signal). */
  close(): Promise<void>;
}

/** true for a loopback address or name (127.0.0.0/8, ::1, localhost). Pure. */
export function isLoopback(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/**
 * Listens on `host:port` (port 0: any free port).
 * @throws ZunoError `port_unavailable` when the address cannot be bound.
 */
export async function listen(app: OpenAPIHono, host: string, port: number): Promise<HttpServer> {
  const server = createAdaptorServer({ fetch: app.fetch, hostname: host }) as Server;
  server.maxConnections = MAX_CONNECTIONS;
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err: NodeJS.ErrnoException) =>
      reject(new ZunoError('port_unavailable', `cannot listen on ${host}:${port}: ${err.code ?? err.message}`)),
    );
    server.listen(port, host, () => resolve());
  });
  const bound = (server.address() as AddressInfo).port;
  const shown = host.includes(':') && !host.startsWith('[') ? `[${host}]` : host;
  return {
    url: `http://${shown}:${bound}`,
    port: bound,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}
