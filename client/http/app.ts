/**
 * The HTTP application of `zuno serve` (issue 29, SF6): rate limit, token,
 * body limit, then the routes — sessions, events (SSE), approvals,
 * questions, Goals, Councils — declared with their zod schemas, which both
 * validate requests and generate the OpenAPI document served at `/doc`.
 * Every failure is `{error: {code, message}}` (client/http/errors.ts).
 */
import { OpenAPIHono } from '@hono/zod-openapi';
import { formatZodIssues } from '../../core/zod-issues.js';
import { zunoVersion } from '../version.js';
import { requireToken } from './auth.js';
import type { HttpDeps } from './deps.js';
import { errorBody, errorResponse } from './errors.js';
import { limitBody, limitRate, RateLimiter } from './limits.js';
import { approvalRoutes } from './routes/approvals.js';
import { councilRoutes } from './routes/councils.js';
import { eventRoutes } from './routes/events.js';
import { goalRoutes } from './routes/goals.js';
import { questionRoutes } from './routes/questions.js';
import { sessionRoutes } from './routes/sessions.js';

/** Where the OpenAPI document is served. */
export const DOC_PATH = '/doc';

/**
 * The application: every route needs `token` (Bearer, or Basic's password).
 * `limiter` defaults to a fresh per-process rate limiter.
 */
export function buildApp(deps: HttpDeps, token: string, limiter: RateLimiter = new RateLimiter()): OpenAPIHono {
  const app = new OpenAPIHono({
    defaultHook: (result, c) => {
      if (!result.success) return c.json(errorBody('request_invalid', formatZodIssues(result.error)), 400);
    },
  });
  app.use('*', limitRate(limiter));
  app.use('*', requireToken(token));
  app.use('*', limitBody());
  sessionRoutes(app, deps);
  eventRoutes(app, deps);
  approvalRoutes(app, deps);
  questionRoutes(app, deps);
  goalRoutes(app, deps);
  councilRoutes(app, deps);
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearerToken', {
    type: 'http',
    scheme: 'bearer',
    description: 'the token in $ZUNO_HOME/http-token (zuno serve --print-token)',
  });
  app.openAPIRegistry.registerComponent('securitySchemes', 'basicToken', {
    type: 'http',
    scheme: 'basic',
    description: 'any user name; the token as the password',
  });
  app.doc(DOC_PATH, {
    openapi: '3.0.3',
    info: {
      title: 'Zuno HTTP API (zuno serve)',
      version: zunoVersion(),
      description:
        'Sessions, their stored events over SSE, approvals, questions, Goals and Councils. See docs/http.md.',
    },
    security: [{ bearerToken: [] }, { basicToken: [] }],
  });
  app.notFound((c) =>
    c.json(errorBody('not_found', `no route ${c.req.method} ${c.req.path} (GET ${DOC_PATH} lists them)`), 404),
  );
  app.onError((err, c) => errorResponse(c, err, deps.log));
  return app;
}
