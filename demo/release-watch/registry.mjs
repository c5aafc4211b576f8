#!/usr/bin/env node
// A registry-like server for the release-watch demo (README.md beside this file),
// offline and plain Node: on 127.0.0.1, a random free port, it answers
// `GET /<package>` with an npm packument (`name`, `dist-tags.latest`, `versions`,
// `time`). Every package starts at 1.0.0; once `publishAfter` requests have been
// answered, 2.0.0 is published: later answers list it and `dist-tags.latest` is
// 2.0.0. Any other path is a 404 like the npm registry's.
//
//   node demo/release-watch/registry.mjs [--publish-after N]
//
// As a command it prints `registry: http://127.0.0.1:<port>` on stdout, then one
// line on stderr per request and one when 2.0.0 is published; it stops on SIGINT
// or SIGTERM. As a module: `startRegistry({ publishAfter })`.
import { createServer } from 'node:http';
import { fileURLToPath } from 'node:url';

/** Requests answered with 1.0.0 only, by default: with checks every 2 s, about 6 s of waiting. */
export const PUBLISH_AFTER_DEFAULT = 3;

const version = (name, v) => ({
  name,
  version: v,
  dependencies: {},
  dist: { tarball: `http://registry.invalid/${name}/-/${name}-${v}.tgz` },
});

/**
 * Starts the registry. `publishAfter`: how many requests see only 1.0.0 (≥ 0);
 * `log(line)`: told of each request and of the publication.
 * @returns `{ url, requests(), publishedAt(), close() }`: `url` without a trailing
 *   slash; `requests()` the number answered so far; `publishedAt()` the time (ms)
 *   2.0.0 was published, or null.
 */
export function startRegistry({ publishAfter = PUBLISH_AFTER_DEFAULT, log = () => {} } = {}) {
  const v1At = new Date().toISOString();
  let requests = 0;
  let publishedAt = null;
  const server = createServer((req, res) => {
    const name = decodeURIComponent(new URL(req.url ?? '/', 'http://registry').pathname.slice(1));
    if (req.method !== 'GET' || !/^[a-z0-9][a-z0-9._-]*$/.test(name)) {
      res.writeHead(404, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 'Not found' }));
      return;
    }
    requests += 1;
    if (publishedAt === null && requests > publishAfter) {
      publishedAt = Date.now();
      log(`registry: published ${name} 2.0.0 (request ${requests})`);
    }
    const versions = { '1.0.0': version(name, '1.0.0') };
    const time = { created: v1At, '1.0.0': v1At };
    if (publishedAt !== null) {
      versions['2.0.0'] = version(name, '2.0.0');
      time['2.0.0'] = new Date(publishedAt).toISOString();
    }
    const latest = publishedAt !== null ? '2.0.0' : '1.0.0';
    log(`registry: GET /${name} → latest ${latest}`);
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ name, 'dist-tags': { latest }, versions, time }));
  });
  return new Promise((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      resolve({
        url: `http://127.0.0.1:${port}`,
        requests: () => requests,
        publishedAt: () => publishedAt,
        close: () => new Promise((done) => server.close(() => done())),
      });
    });
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const i = process.argv.indexOf('--publish-after');
  const publishAfter = i > 0 ? Number(process.argv[i + 1]) : PUBLISH_AFTER_DEFAULT;
  if (!Number.isInteger(publishAfter) || publishAfter < 0) {
    process.stderr.write('registry: --publish-after needs a whole number of requests (0 or more)\n');
    process.exit(2);
  }
  const registry = await startRegistry({ publishAfter, log: (line) => process.stderr.write(`${line}\n`) });
  process.stdout.write(`registry: ${registry.url}\n`);
  const stop = () => registry.close().then(() => process.exit(0));
  process.on('SIGINT', stop);
  process.on('SIGTERM', stop);
}
