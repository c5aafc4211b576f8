/**
 * `session/load` replay (SF4, SF12): the stored transcript of a session sent
 * again as `session/update` notifications before the load answers — each
 * input the session admitted as a `user_message_chunk` (placed before the
 * first event stored after it was admitted), every stored event through the
 * same mapping as live updates (event-updates.ts). The pump then goes on
 * from the last replayed event, so nothing is sent twice or skipped.
 */
import type { AgentContext, SessionUpdate } from '@agentclientprotocol/sdk';
import type { InputRow } from '../../activities/projection/index.js';
import type { SurfaceHost } from '../surface/index.js';
import type { EventMapper } from './event-updates.js';

/** Events read per page while replaying. */
const PAGE = 500;

/**
 * Replays session `sessionId` to `client` through `mapper` and returns the
 * last replayed event's seq (the pump starts after it).
 * @throws what the store or the connection throws.
 */
export async function replaySession(
  host: SurfaceHost,
  client: Pick<AgentContext, 'notify'>,
  sessionId: string,
  mapper: EventMapper,
): Promise<number> {
  const send = (update: SessionUpdate) => client.notify('session/update', { sessionId, update });
  const last = await host.store.lastEventSeq(sessionId);
  const inputs = [...(await host.store.listInputs(sessionId))].sort((a, b) => a.admittedAtMs - b.admittedAtMs);
  let next = 0;
  const userUpTo = async (atMs: number) => {
    while (next < inputs.length && inputs[next]!.admittedAtMs <= atMs) await send(userChunk(inputs[next++]!));
  };
  let after = 0;
  while (after < last) {
    const rows = (await host.store.listEvents(sessionId, after, PAGE)).filter((e) => e.seq <= last);
    if (rows.length === 0) break;
    for (const e of rows) {
      await userUpTo(e.atMs);
      for (const u of await mapper.map(e)) await send(u);
      after = e.seq;
    }
  }
  await userUpTo(Number.POSITIVE_INFINITY);
  return last;
}

/** A stored input as the user's message. */
export function userChunk(input: Pick<InputRow, 'id' | 'text'>): SessionUpdate {
  return { sessionUpdate: 'user_message_chunk', content: { type: 'text', text: input.text }, messageId: input.id };
}
