/**
 * Authentication of `zuno serve` (issue 29, SF6): every request carries the
 * home's token (client/http/token.ts), as `Authorization: Bearer <token>` or
 * as Basic auth with the token as the password (any user name). A request
 * without it is answered 401 `unauthorized` before any route runs, so
 * nothing is read or recorded for it. The browser-cookie mode of SF6 is not
 * implemented.
 */
import { createHash, timingSafeEqual } from 'node:crypto';
import type { MiddlewareHandler } from 'hono';
import { errorBody } from './errors.js';

/** sha256 of a text (fixed length, so the comparison below is constant-time). */
function digest(text: string): Buffer {
  return createHash('sha256').update(text, 'utf8').digest();
}

/**
 * The token an `Authorization` header carries (Bearer, or Basic's password),
 * or null. Pure.
 */
export function presentedToken(header: string | undefined): string | null {
  if (!header) return null;
  const bearer = /^Bearer\s+(\S+)\s*$/i.exec(header);
  if (bearer) return bearer[1]!;
  const basic = /^Basic\s+([A-Za-z0-9+/=]+)\s*$/i.exec(header);
  if (!basic) return null;
  const decoded = Buffer.from(basic[1]!, 'base64').toString('utf8');
  const colon = decoded.indexOf(':');
  return colon < 0 ? null : decoded.slice(colon + 1);
}

/**
 * Middleware that answers 401 `unauthorized` (with `WWW-Authenticate`) to a
 * request whose token is missing or wrong; compared in constant time.
 */
export function requireToken(token: string): MiddlewareHandler {
  const expected = digest(token);
  return async (c, next) => {
    const given = presentedToken(c.req.header('authorization'));
    if (given === null || !timingSafeEqual(digest(given), expected)) {
      c.header('WWW-Authenticate', 'Bearer realm="zuno", Basic realm="zuno"');
      return c.json(
        errorBody(
          'unauthorized',
          given === null
            ? 'this request carries no token: send Authorization: Bearer <token> (zuno serve --print-token)'
            : 'the token is not this home’s (zuno serve --print-token prints it)',
        ),
        401,
      );
    }
    await next();
  };
}
