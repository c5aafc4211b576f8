/**
 * The session routes of `zuno serve` (issue 29, SF6): list, create (a new
 * session and its first prompt, exactly as `zuno run` starts one), get,
 * transcript (what `zuno session show --json` prints), prompt (the next
 * input, through the durable inbox: SE1, SE2), interrupt (as `zuno session
 * interrupt`). Sessions are served by the host worker service, never by the
 * server (SF1, SF9).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ZunoError } from '../../../core/errors.js';
import { sessionJson } from '../../commands/session-list.js';
import { sessionShowData, sessionShowJson } from '../../commands/session-show.js';
import { runningSession } from '../../session-admit.js';
import { withTemporalTruth } from '../../session-reconcile.js';
import { interruptSession, newSessionId } from '../../session-start.js';
import { admitPrompt, type AdmittedPrompt } from '../../surface/index.js';
import type { HttpDeps } from '../deps.js';
import {
  AdmissionSchema,
  CreateSessionSchema,
  InterruptSchema,
  PromptSchema,
  SessionListQuery,
  SessionParams,
  SessionSummarySchema,
  StoredSchema,
} from '../schemas.js';
import { failures, jsonBody, jsonContent } from './common.js';

const list = createRoute({
  method: 'get',
  path: '/sessions',
  summary: "The sessions of Zuno's home, newest activity first (as zuno session list --json)",
  request: { query: SessionListQuery },
  responses: { 200: jsonContent(SessionSummarySchema.array(), 'the sessions'), ...failures(400) },
});

const create = createRoute({
  method: 'post',
  path: '/sessions',
  summary: 'Start a new session with its first prompt (as zuno run)',
  request: { body: jsonBody(CreateSessionSchema) },
  responses: { 201: jsonContent(AdmissionSchema, 'the new session and its admission receipt'), ...failures(400, 413) },
});

const get = createRoute({
  method: 'get',
  path: '/sessions/{id}',
  summary: 'One session',
  request: { params: SessionParams },
  responses: { 200: jsonContent(SessionSummarySchema, 'the session'), ...failures(400, 404) },
});

const transcript = createRoute({
  method: 'get',
  path: '/sessions/{id}/transcript',
  summary: 'The stored transcript (as zuno session show --json)',
  request: { params: SessionParams },
  responses: { 200: jsonContent(StoredSchema, 'the transcript as stored'), ...failures(400, 404) },
});

const prompt = createRoute({
  method: 'post',
  path: '/sessions/{id}/prompt',
  summary: "The session's next input (a running turn takes it at its next safe point, or it is queued)",
  request: { params: SessionParams, body: jsonBody(PromptSchema) },
  responses: { 202: jsonContent(AdmissionSchema, 'the admission receipt'), ...failures(400, 404, 409, 413) },
});

const interrupt = createRoute({
  method: 'post',
  path: '/sessions/{id}/interrupt',
  summary: 'Hard-interrupt the running turn (as zuno session interrupt)',
  request: { params: SessionParams },
  responses: { 200: jsonContent(InterruptSchema, 'the interrupt receipt'), ...failures(400, 404, 409, 503) },
});

/** The admission receipt as the routes answer it. Pure. */
function admission(a: AdmittedPrompt) {
  return AdmissionSchema.parse({
    sessionId: a.sessionId,
    inputId: a.receipt.inputId,
    status: a.receipt.status,
    duplicate: a.receipt.duplicate,
    after: a.after,
  });
}

/** Registers the session routes on `app`. */
export function sessionRoutes(app: OpenAPIHono, deps: HttpDeps): void {
  const { host } = deps;
  app.openapi(list, async (c) => {
    const q = c.req.valid('query');
    const stored = await host.store.listSessions({
      ...(q.status !== undefined ? { status: q.status as never } : {}),
      limit: q.limit ?? 50,
    });
    const rows = (await withTemporalTruth(host.paths, host.store, stored)).filter(
      (r) => q.status === undefined || r.status === q.status,
    );
    return c.json(SessionSummarySchema.array().parse(rows.map(sessionJson)), 200);
  });
  app.openapi(create, async (c) => {
    const b = c.req.valid('json');
    const script = b.model === undefined ? deps.script : undefined;
    const admitted = await admitPrompt(host, {
      sessionId: newSessionId(),
      text: b.text,
      workspace: b.workspace,
      ...(b.agent !== undefined ? { agent: b.agent } : {}),
      ...(b.model !== undefined ? { model: b.model } : {}),
      ...(b.clientMessageId !== undefined ? { clientMessageId: b.clientMessageId } : {}),
      ...(script !== undefined ? { script } : {}),
    });
    return c.json(admission(admitted), 201);
  });
  app.openapi(get, async (c) => {
    const { id } = c.req.valid('param');
    const row = await host.store.getSession(id);
    if (!row) throw new ZunoError('session_not_found', `no session ${id} in this home`);
    const [checked] = await withTemporalTruth(host.paths, host.store, [row]);
    return c.json(SessionSummarySchema.parse(sessionJson(checked ?? row)), 200);
  });
  app.openapi(transcript, async (c) => {
    const { id } = c.req.valid('param');
    const data = await sessionShowData(host.paths, host.store, id);
    return c.json(JSON.parse(JSON.stringify(sessionShowJson(data))) as Record<string, unknown>, 200);
  });
  app.openapi(prompt, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    const row = await host.store.getSession(id);
    if (!row) throw new ZunoError('session_not_found', `no session ${id} in this home`);
    // A closed scripted session is reopened on the server's script; a running one keeps its model.
    const reopenScripted = b.model === undefined && row.provider === 'local' && deps.script !== undefined;
    const script = reopenScripted && !(await runningSession(host.temporal, row)) ? deps.script : undefined;
    const admitted = await admitPrompt(host, {
      sessionId: id,
      text: b.text,
      ...(b.model !== undefined ? { model: b.model } : {}),
      ...(b.clientMessageId !== undefined ? { clientMessageId: b.clientMessageId } : {}),
      ...(script !== undefined ? { script } : {}),
    });
    return c.json(admission(admitted), 202);
  });
  app.openapi(interrupt, async (c) => {
    const { id } = c.req.valid('param');
    const receipt = await interruptSession(host.temporal.client, id, 'zuno serve');
    return c.json(InterruptSchema.parse(receipt), 200);
  });
}
