/**
 * The worker's MCP hub (issue 30 item 2, MC1, MC9) on
 * `@modelcontextprotocol/sdk`: every MCP connection of the sessions this
 * process serves, one per (session, server), never shared across sessions.
 *
 * - Lazy: a server connects at the session's first `catalog()` or `call()`.
 *   A server that cannot start is `failed` with its own error (catalog never
 *   throws) and is tried again by a catalog at least {@link RETRY_FAILED_MS}
 *   later; a call of it is `unavailable` meanwhile.
 * - Revisions: a server's catalog revision is 1 at its first listing and one
 *   more at every later listing (a `tools/list_changed`, applied at the next
 *   catalog, or a reconnect), monotonic for the session.
 * - A dead connection (transport closed, stdio process gone) is `closed` with
 *   its error; the next `call()` of it is `disconnected` (nothing sent) and
 *   the use after that reconnects; the next `catalog()` reconnects at once.
 * - At most `config.connections` requests of a session in flight (connect,
 *   list, call), per session.
 * - Idle close: a session closes when idle (its workflow ends; the next input
 *   reopens it), and no signal reaches the worker then, so a session's
 *   connections close after {@link IDLE_CLOSE_MS} without use (an unref'd
 *   timer; a request in flight counts as use); its next use reconnects. `closeSession`/`closeAll` close at once.
 * - `${NAME}` templates of `env`/`headers` resolve from `process.env` after
 *   the home's credentials file is re-read (`stateDir`).
 */
import { declaredTools } from '../../core/tools/registry.js';
import { CredentialRefresher } from '../infra/credentials.js';
import { catalogTools, type ListedStatus } from './catalog-names.js';
import { McpConnection } from './connection.js';
import { Limiter } from './limiter.js';
import { McpCallError, type McpCallAnswer, type McpHub, type McpServerSpec, type McpSessionRef } from './types.js';

/** A session's connections close after this long without use, in ms (10 minutes). */
export const IDLE_CLOSE_MS = 10 * 60_000;
/** A failed server is tried again by a catalog no sooner than this, in ms. */
export const RETRY_FAILED_MS = 60_000;

/** One configured server of one session. */
interface Slot {
  spec: McpServerSpec;
  conn?: McpConnection;
  /** An open in progress (connect + first list). */
  opening?: Promise<McpConnection | undefined>;
  /** A re-listing in progress (concurrent catalogs share it: one list change, one revision). */
  relisting?: Promise<void>;
  state: 'idle' | 'connected' | 'failed' | 'closed';
  error?: string;
  failedAtMs?: number;
  revision: number;
}

/** One session's connections. */
interface SessionEntry {
  limiter: Limiter;
  slots: Map<string, Slot>;
  idle?: NodeJS.Timeout;
}

/** Built-in tool names an MCP wire name must not take. */
const BUILT_IN = new Set(Object.keys(declaredTools));

/**
 * Creates the hub (see module doc).
 * @param opts.stateDir the home whose `credentials.json` is re-read before templates resolve.
 * @param opts.idleCloseMs idle time after which a session's connections close (default {@link IDLE_CLOSE_MS}).
 */
export function createMcpHub(opts: { stateDir?: string; idleCloseMs?: number } = {}): McpHub & {
  /** The stdio pid of a session's server connection, or null (tests kill it to prove reconnects). */
  pidOf(sessionId: string, server: string): number | null;
} {
  const creds = opts.stateDir ? new CredentialRefresher(opts.stateDir) : undefined;
  const sessions = new Map<string, SessionEntry>();
  const closeSession = async (sessionId: string) => {
    const s = sessions.get(sessionId);
    if (!s) return;
    sessions.delete(sessionId);
    clearTimeout(s.idle);
    await Promise.all(
      [...s.slots.values()].map(async (slot) => {
        const opened = await slot.opening; // an open in progress is closed once it lands
        await (slot.conn ?? opened)?.close();
      }),
    );
  };
  const armIdle = (sessionId: string, s: SessionEntry) => {
    clearTimeout(s.idle);
    s.idle = setTimeout(() => {
      // A request still in flight (a long call) is use: wait for a quiet period.
      if (s.limiter.busy) armIdle(sessionId, s);
      else void closeSession(sessionId);
    }, opts.idleCloseMs ?? IDLE_CLOSE_MS).unref();
  };
  const entry = (ref: McpSessionRef): SessionEntry => {
    let s = sessions.get(ref.sessionId);
    if (!s) sessions.set(ref.sessionId, (s = { limiter: new Limiter(ref.config.connections), slots: new Map() }));
    armIdle(ref.sessionId, s);
    for (const spec of ref.config.servers)
      if (!s.slots.has(spec.name)) s.slots.set(spec.name, { spec, state: 'idle', revision: 0 });
    return s;
  };
  const connect = (s: SessionEntry, slot: Slot, workspace: string) =>
    (slot.opening ??= s.limiter.run(() => openSlot(slot, workspace, creds)).finally(() => (slot.opening = undefined)));
  return {
    async catalog(ref) {
      const s = entry(ref);
      const statuses = await Promise.all(
        ref.config.servers.map((spec) => refresh(s, s.slots.get(spec.name)!, ref.workspace, connect)),
      );
      return catalogTools(statuses, BUILT_IN);
    },
    async call(ref, facts, args, callOpts): Promise<McpCallAnswer> {
      const s = entry(ref);
      const slot = s.slots.get(facts.server);
      if (!slot) throw new McpCallError('unavailable', `no MCP server named ${facts.server} in this session`);
      const conn = await usable(s, slot, ref.workspace, connect);
      if (!conn.tools.some((t) => t.name === facts.tool))
        throw new McpCallError('unavailable', `MCP server ${facts.server} has no tool ${facts.tool}`);
      return s.limiter
        .run(() =>
          conn.call(facts.tool, args, {
            timeoutMs: slot.spec.callTimeoutMs,
            ...(callOpts.signal ? { signal: callOpts.signal } : {}),
            ...(callOpts.onProgress ? { onProgress: callOpts.onProgress } : {}),
          }),
        )
        .catch((err: unknown) => {
          // This call already told of the connection's end: the next use reconnects.
          if (slot.state === 'closed' && !slot.conn) slot.state = 'idle';
          throw err;
        });
    },
    closeSession,
    async closeAll() {
      await Promise.all([...sessions.keys()].map(closeSession));
    },
    pidOf: (sessionId, server) => sessions.get(sessionId)?.slots.get(server)?.conn?.pid ?? null,
  };
}

type Connect = (s: SessionEntry, slot: Slot, workspace: string) => Promise<McpConnection | undefined>;

/** Opens a slot's connection; a failure leaves the slot `failed` with the server's error. */
async function openSlot(
  slot: Slot,
  workspace: string,
  creds: CredentialRefresher | undefined,
): Promise<McpConnection | undefined> {
  creds?.refresh();
  try {
    const conn: McpConnection = await McpConnection.open(slot.spec, workspace, (error) => {
      if (slot.conn !== conn) return;
      slot.conn = undefined;
      slot.state = 'closed';
      slot.error = error;
    });
    slot.conn = conn;
    slot.state = 'connected';
    slot.error = undefined;
    slot.revision++;
    return conn;
  } catch (err) {
    slot.state = 'failed';
    slot.error = (err as Error).message;
    slot.failedAtMs = Date.now();
    return undefined;
  }
}

/** A slot brought up to date for a catalog: connected (re-listed when stale), or failed/closed with its error. */
async function refresh(s: SessionEntry, slot: Slot, workspace: string, connect: Connect): Promise<ListedStatus> {
  if (slot.conn && !slot.conn.alive) dropDead(slot);
  const retry = slot.state === 'failed' && Date.now() - (slot.failedAtMs ?? 0) >= RETRY_FAILED_MS;
  // A change announced during the first listing is applied at the next catalog (the next step).
  if (slot.state === 'idle' || slot.state === 'closed' || retry) await connect(s, slot, workspace);
  else if (slot.opening) await slot.opening;
  else if (slot.relisting) await slot.relisting;
  else if (slot.conn?.stale)
    await (slot.relisting = relist(s, slot, slot.conn).finally(() => (slot.relisting = undefined)));
  return statusOf(slot);
}

/** Re-lists a connected slot's tools after a list change (a new revision), or marks it closed when that fails. */
async function relist(s: SessionEntry, slot: Slot, conn: McpConnection): Promise<void> {
  try {
    await s.limiter.run(() => conn.list(slot.spec.startupTimeoutMs));
    slot.revision++;
  } catch (err) {
    slot.error = (err as Error).message;
    if (!conn.alive) dropDead(slot);
  }
}

/** The connection a call uses: opened now when the slot never was; a dead or failed one throws. */
async function usable(s: SessionEntry, slot: Slot, workspace: string, connect: Connect): Promise<McpConnection> {
  if (slot.conn && !slot.conn.alive) dropDead(slot);
  if (slot.state === 'closed') {
    const why = slot.error ?? 'the connection closed';
    slot.state = 'idle'; // the use after this one reconnects
    throw new McpCallError('disconnected', `MCP server ${slot.spec.name} is not connected (${why}); nothing was sent`);
  }
  if (slot.state === 'failed')
    throw new McpCallError('unavailable', `MCP server ${slot.spec.name} failed to start: ${slot.error ?? ''}`);
  const conn = slot.conn ?? (await (slot.opening ?? connect(s, slot, workspace)));
  if (!conn)
    throw new McpCallError(
      'disconnected',
      `MCP server ${slot.spec.name} could not connect (${slot.error ?? 'unknown'}); nothing was sent`,
    );
  return conn;
}

/** Forgets a dead connection: the slot is `closed` with its error. */
function dropDead(slot: Slot): void {
  const conn = slot.conn!;
  slot.conn = undefined;
  slot.state = 'closed';
  slot.error = conn.error ?? 'the server process exited';
  void conn.close();
}

/** A slot's status before wire names are assigned (the tools' names are the servers' own). */
function statusOf(slot: Slot): ListedStatus {
  const spec = slot.spec;
  const listed = slot.state === 'connected' && slot.conn ? slot.conn.tools : [];
  return {
    name: spec.name,
    status: slot.state === 'connected' ? 'connected' : slot.state === 'idle' ? 'closed' : slot.state,
    ...(slot.error && slot.state !== 'connected' ? { error: slot.error } : {}),
    revision: slot.revision,
    listed,
    trust: spec.annotations,
  };
}
