/**
 * The Council routes of `zuno serve` (issue 29, SF6): start (as `zuno
 * council run`, without following), show (as `zuno council show --json`: the
 * stored row), cancel (what Ctrl-C does to `zuno council run`: the Council
 * workflow is cancelled).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { councilWorkflowId } from '../../../core/council/contract.js';
import { ZunoError } from '../../../core/errors.js';
import type { HttpDeps } from '../deps.js';
import { launchCouncil } from '../launch.js';
import { CouncilParams, CouncilRunSchema, CouncilStartSchema, StoredSchema } from '../schemas.js';
import { failures, jsonBody, jsonContent } from './common.js';

const start = createRoute({
  method: 'post',
  path: '/councils',
  summary: 'Start a Council (as zuno council run); poll GET /councils/{id}',
  request: { body: jsonBody(CouncilStartSchema) },
  responses: { 201: jsonContent(CouncilRunSchema, 'the Council run id'), ...failures(400, 413) },
});

const show = createRoute({
  method: 'get',
  path: '/councils/{id}',
  summary: 'One Council (as zuno council show --json)',
  request: { params: CouncilParams },
  responses: { 200: jsonContent(StoredSchema, 'the stored Council row'), ...failures(400, 404) },
});

const cancel = createRoute({
  method: 'post',
  path: '/councils/{id}/cancel',
  summary: 'Cancel a running Council (as Ctrl-C on zuno council run)',
  request: { params: CouncilParams },
  responses: { 202: jsonContent(CouncilRunSchema, 'cancellation requested'), ...failures(400, 404, 409) },
});

/** Registers the Council routes on `app`. */
export function councilRoutes(app: OpenAPIHono, deps: HttpDeps): void {
  const { host } = deps;
  app.openapi(start, async (c) => {
    const started = await launchCouncil(host, c.req.valid('json'), deps.script);
    return c.json(CouncilRunSchema.parse(started), 201);
  });
  app.openapi(show, async (c) => {
    const { id } = c.req.valid('param');
    const row = await host.store.getCouncil(id);
    if (!row) throw new ZunoError('council_not_found', `no council ${id} in this home`);
    return c.json(JSON.parse(JSON.stringify(row)) as never, 200);
  });
  app.openapi(cancel, async (c) => {
    const { id } = c.req.valid('param');
    if (!(await host.store.getCouncil(id))) throw new ZunoError('council_not_found', `no council ${id} in this home`);
    const handle = host.temporal.client.workflow.getHandle(councilWorkflowId(id));
    if ((await handle.describe()).status.name !== 'RUNNING')
      throw new ZunoError('council_closed', `council ${id} has ended: there is nothing to cancel`);
    await handle.cancel();
    return c.json({ runId: id }, 202);
  });
}
