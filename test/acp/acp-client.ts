/**
 * An editor's side of `zuno acp` for the tests: spawns `node bin/zuno.mjs
 * acp …` (clean environment, the test's home, the host worker service) and
 * connects the official SDK's client app to its stdio, recording every
 * `session/update` and answering `session/request_permission` with a
 * handler the test sets.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { Readable, Writable } from 'node:stream';
import {
  client,
  ndJsonStream,
  PROTOCOL_VERSION,
  type ClientConnection,
  type RequestPermissionRequest,
  type RequestPermissionResponse,
  type SessionNotification,
  type SessionUpdate,
} from '@agentclientprotocol/sdk';
import { afterAll } from 'vitest';
import { makeHome, runZuno, useTestTemporal, ZUNO_BIN } from '../cli/helpers.js';
import { waitFor } from '../helpers/worker-process.js';

/** Variables of the developer's shell that would change what `zuno` does; never inherited. */
const SCRUBBED = /^(ZUNO_|TEMPORAL_|DATABASE_URL$|OPENAI_API_KEY$|OPENROUTER_API_KEY$)/;

/** A running `zuno acp` and the test's client connection to it. */
export interface AcpClient {
  child: ChildProcess;
  conn: ClientConnection;
  /** Every `session/update` received, in order. */
  updates: SessionNotification[];
  /** Every `session/request_permission` received, in order. */
  permissions: RequestPermissionRequest[];
  /** How the client answers a permission request (default: cancelled). */
  onPermission: (req: RequestPermissionRequest) => Promise<RequestPermissionResponse> | RequestPermissionResponse;
  /** What the process wrote to stderr so far. */
  stderr(): string;
  /** Resolves with the exit code once the process ended. */
  exited: Promise<number | null>;
  /** Closes stdin (an editor quitting) and waits for the exit. */
  close(): Promise<number | null>;
  /** SIGKILLs the process (an editor crashing with it). */
  kill(): Promise<number | null>;
}

const children: ChildProcess[] = [];

/**
 * Fresh homes on the suite's dev server whose commands use the host worker
 * service; after the file every `zuno acp` still running is killed and each
 * home's worker service is stopped (`zuno worker stop`).
 */
export function useServiceHomes(): () => string {
  const temporal = useTestTemporal();
  const homes: string[] = [];
  afterAll(async () => {
    for (const c of children) await killChild(c);
    for (const home of homes) await runZuno(['worker', 'stop'], { home, timeoutMs: 60_000 });
  }, 180_000);
  return () => {
    const { home } = makeHome({ address: temporal.address });
    homes.push(home);
    return home;
  };
}

/** SIGKILLs a child's process group and waits for its exit. */
async function killChild(c: ChildProcess): Promise<void> {
  if (c.exitCode !== null || c.signalCode !== null) return;
  const gone = new Promise((r) => c.once('close', r));
  try {
    process.kill(-c.pid!, 'SIGKILL');
  } catch {
    return;
  }
  await gone;
}

/** The environment of a spawned `zuno`: scrubbed, this home, the host worker service. */
export function acpEnv(home: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) if (!SCRUBBED.test(k)) env[k] = v;
  env.ZUNO_HOME = home;
  if (process.env.ZUNO_BUNDLE_CACHE) env.ZUNO_BUNDLE_CACHE = process.env.ZUNO_BUNDLE_CACHE;
  env.ZUNO_WORKER = 'service';
  return env;
}

/** Spawns `zuno acp ...args` (cwd `cwd`) and connects a client app to it (not initialized yet). */
export function startAcp(home: string, args: string[] = [], cwd: string = home): AcpClient {
  const child = spawn(process.execPath, [ZUNO_BIN, 'acp', ...args], {
    cwd,
    env: acpEnv(home),
    stdio: ['pipe', 'pipe', 'pipe'],
    detached: true,
  });
  children.push(child);
  let stderr = '';
  child.stderr!.setEncoding('utf8').on('data', (d: string) => (stderr += d));
  const exited = new Promise<number | null>((r) => child.once('close', (code) => r(code)));
  const self = {
    child,
    updates: [] as SessionNotification[],
    permissions: [] as RequestPermissionRequest[],
    onPermission: (() => ({ outcome: { outcome: 'cancelled' } })) as AcpClient['onPermission'],
    stderr: () => stderr,
    exited,
  } as AcpClient;
  const app = client({ name: 'zuno-acp-test' })
    .onNotification('session/update', ({ params }) => {
      self.updates.push(params);
    })
    .onRequest('session/request_permission', async ({ params }) => {
      self.permissions.push(params);
      return self.onPermission(params);
    });
  self.conn = app.connect(
    ndJsonStream(
      Writable.toWeb(child.stdin!) as WritableStream<Uint8Array>,
      Readable.toWeb(child.stdout!) as ReadableStream<Uint8Array>,
    ),
  );
  self.close = async () => {
    child.stdin!.end();
    return exited;
  };
  self.kill = async () => {
    await killChild(child);
    return exited;
  };
  return self;
}

/** `initialize` as an editor sends it (no fs, no terminal offered). */
export function initialize(c: AcpClient) {
  return c.conn.agent.request('initialize', {
    protocolVersion: PROTOCOL_VERSION,
    clientCapabilities: { fs: { readTextFile: false, writeTextFile: false }, terminal: false },
    clientInfo: { name: 'zuno-acp-test', version: '0' },
  });
}

/** The updates of `sessionId` received so far. */
export function updatesOf(c: AcpClient, sessionId: string): SessionUpdate[] {
  return c.updates.filter((n) => n.sessionId === sessionId).map((n) => n.update);
}

/** The agent's message text of `sessionId` so far (its chunks joined). */
export function agentText(c: AcpClient, sessionId: string): string {
  return updatesOf(c, sessionId)
    .map((u) => (u.sessionUpdate === 'agent_message_chunk' && u.content.type === 'text' ? u.content.text : ''))
    .join('');
}

type ToolCallStart = Extract<SessionUpdate, { sessionUpdate: 'tool_call' }>;

/** The `tool_call` updates of `sessionId`. */
export function toolCalls(c: AcpClient, sessionId: string): ToolCallStart[] {
  return updatesOf(c, sessionId).filter((u): u is ToolCallStart => u.sessionUpdate === 'tool_call');
}

/** The `tool_call_update`s of one call, in order. */
export function callUpdates(c: AcpClient, sessionId: string, toolCallId: string) {
  return updatesOf(c, sessionId).filter(
    (u): u is Extract<SessionUpdate, { sessionUpdate: 'tool_call_update' }> =>
      u.sessionUpdate === 'tool_call_update' && u.toolCallId === toolCallId,
  );
}

/** Waits until a `tool_call` of `sessionId` satisfies `match`, and returns it. */
export function waitForToolCall(
  c: AcpClient,
  sessionId: string,
  match: (t: ToolCallStart) => boolean,
  timeoutMs = 120_000,
): Promise<ToolCallStart> {
  return waitFor(async () => toolCalls(c, sessionId).find(match), timeoutMs, 'a tool_call');
}
