/**
 * The Goal routes of `zuno serve` (issue 29, SF6; GP29): start (as `zuno
 * goal start`, without following: follow its session over SSE), show (as
 * `zuno goal show --json`), control (pause, cancel, budgets: as `zuno goal
 * pause|cancel|budgets`, bound to the Goal's revision).
 */
import { createRoute, type OpenAPIHono } from '@hono/zod-openapi';
import { ZunoError } from '../../../core/errors.js';
import { controlGoal, withServedGoal } from '../../commands/goal-control.js';
import { goalShowData } from '../../commands/goal-show.js';
import { parseBudgetFlags } from '../../goal-input.js';
import type { Sink } from '../../sink.js';
import type { HttpDeps } from '../deps.js';
import { launchGoal } from '../launch.js';
import {
  GoalControlResultSchema,
  GoalControlSchema,
  GoalParams,
  GoalStartedSchema,
  GoalStartSchema,
  StoredSchema,
} from '../schemas.js';
import { failures, jsonBody, jsonContent } from './common.js';

const start = createRoute({
  method: 'post',
  path: '/goals',
  summary: 'Start a Goal and its session (as zuno goal start); follow it at /sessions/{sessionId}/events',
  request: { body: jsonBody(GoalStartSchema) },
  responses: { 201: jsonContent(GoalStartedSchema, 'the Goal and its session'), ...failures(400, 413) },
});

const show = createRoute({
  method: 'get',
  path: '/goals/{id}',
  summary: 'One Goal (as zuno goal show --json)',
  request: { params: GoalParams },
  responses: { 200: jsonContent(StoredSchema, '{goal, session, live, workState, transitions}'), ...failures(400, 404) },
});

const control = createRoute({
  method: 'post',
  path: '/goals/{id}/control',
  summary: 'Pause, cancel, or set the budgets of a Goal',
  request: { params: GoalParams, body: jsonBody(GoalControlSchema) },
  responses: {
    200: jsonContent(GoalControlResultSchema, "the Goal workflow's answer"),
    ...failures(400, 404, 409, 413, 503),
  },
});

/** The budgets a `budgets` control sets. @throws ZunoError `request_invalid`, `input_invalid`. */
function budgetsOf(b: { action: string; budgets?: Record<string, string | undefined> | undefined }) {
  if (b.action !== 'budgets') {
    if (b.budgets !== undefined) throw new ZunoError('request_invalid', 'budgets applies to the budgets action only');
    return undefined;
  }
  const flags = b.budgets ?? {};
  if (!Object.values(flags).some((v) => v !== undefined))
    throw new ZunoError(
      'request_invalid',
      'name at least one budget: tokenBudget, turnBudget, toolCallBudget or timeBudget',
    );
  const parsed = parseBudgetFlags(flags);
  if (!parsed.ok) throw new ZunoError('input_invalid', parsed.problems.join('; '));
  return parsed.budgets;
}

/** Registers the Goal routes on `app`. */
export function goalRoutes(app: OpenAPIHono, deps: HttpDeps): void {
  const { host } = deps;
  const logSink: Sink = { out: () => undefined, err: (t) => deps.log(t.trimEnd()) };
  app.openapi(start, async (c) => {
    const b = c.req.valid('json');
    const started = await launchGoal(host, b, deps.script);
    return c.json(GoalStartedSchema.parse(started), 201);
  });
  app.openapi(show, async (c) => {
    const { id } = c.req.valid('param');
    const row = await host.store.getGoal(id);
    if (!row) throw new ZunoError('goal_not_found', `no goal ${id} in this home`);
    const { bare, session, live, workState, transitions } = await goalShowData(host.paths, host.store, row);
    return c.json(JSON.parse(JSON.stringify({ goal: bare, session, live, workState, transitions })) as never, 200);
  });
  app.openapi(control, async (c) => {
    const { id } = c.req.valid('param');
    const b = c.req.valid('json');
    const budgets = budgetsOf(b);
    const result = await withServedGoal(id, host.command, (g) =>
      controlGoal(
        g,
        (s) => {
          const expectedRevision = b.expectedRevision ?? s.revision;
          if (b.action === 'budgets')
            return { action: 'budgets', expectedRevision, budgets: { ...s.budgets, ...budgets } };
          return { action: b.action, expectedRevision };
        },
        logSink,
      ),
    );
    return c.json(GoalControlResultSchema.parse(result), 200);
  });
}
