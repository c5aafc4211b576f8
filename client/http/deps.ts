/**
 * What the routes of `zuno serve` share (issue 29, SF6): the surface host
 * (Temporal, projection, worker guard), the scripted model for sessions
 * created over HTTP (`--script`), where the server's own notes go, and the
 * signal that ends every open stream when the server stops.
 */
import type { Script } from '../../local-provider/script.js';
import type { SurfaceHost } from '../surface/index.js';

/** The routes' shared state (one per server). */
export interface HttpDeps {
  host: SurfaceHost;
  /** `--script FILE`: the model of sessions created (or reopened) over HTTP; absent: the workspace's zuno.json model. */
  script?: Script;
  /** The server's log (stderr): unexpected failures, worker notes. Never sent to a client. */
  log: (line: string) => void;
  /** Aborts when the server stops: every SSE stream ends. */
  shutdown: AbortSignal;
}
