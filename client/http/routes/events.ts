/**
 * The SSE routes of `zuno serve` (issue 29, SF6, SF7): `/events` (every
 * session of the home; without `Last-Event-ID` it starts at the newest
 * event) and `/sessions/{id}/events` (one session; without `Last-Event-ID`
 * it starts at the session's first event). See client/http/sse.ts for the
 * message shape, the replay window and the heartbeats.
 */
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi';
import { ZunoError } from '../../../core/errors.js';
import type { HttpDeps } from '../deps.js';
import { EventSchema, SessionParams } from '../schemas.js';
import { REPLAY_WINDOW, resumePoint, streamEvents } from '../sse.js';
import { failures } from './common.js';

/** Header and query that say where a stream resumes. */
const resume = {
  headers: z.object({
    'last-event-id': z
      .string()
      .optional()
      .openapi({ description: `resume after this seq (at most ${REPLAY_WINDOW} events are replayed)` }),
  }),
  query: z.object({
    after: z.string().optional().openapi({ description: 'as Last-Event-ID, for clients that cannot set headers' }),
  }),
};

/** The SSE response as documented: each message's data is a stored event. */
const sseContent = (description: string) => ({
  description,
  content: { 'text/event-stream': { schema: EventSchema } },
});

const home = createRoute({
  method: 'get',
  path: '/events',
  summary: "Every session's stored events as they are recorded (SSE)",
  request: resume,
  responses: { 200: sseContent('event: <stored type>, id: <seq>, data: the stored event'), ...failures(400) },
});

const session = createRoute({
  method: 'get',
  path: '/sessions/{id}/events',
  summary: "One session's stored events, from its first (SSE)",
  request: { params: SessionParams, ...resume },
  responses: { 200: sseContent('event: <stored type>, id: <seq>, data: the stored event'), ...failures(400, 404) },
});

/** Registers the two SSE routes on `app`. */
export function eventRoutes(app: OpenAPIHono, deps: HttpDeps): void {
  app.openapi(home, async (c) => {
    const after = resumePoint(c, await deps.host.store.lastSeq());
    return streamEvents(c, deps, { after });
  });
  app.openapi(session, async (c) => {
    const { id } = c.req.valid('param');
    const after = resumePoint(c, 0);
    if (!(await deps.host.store.getSession(id)))
      throw new ZunoError('session_not_found', `no session ${id} in this home`);
    return streamEvents(c, deps, { after, sessionId: id });
  });
}
