/**
 * Script format of the local provider server (DESIGN.md §6 "Models").
 *
 * A script is an ordered list of replies. Each `POST /v1/chat/completions`
 * takes the next reply; a reply with a `fault` first answers with that fault
 * (`times` requests), so retries of the same request see the fault and then
 * the reply. See `README.md` in this folder for a worked example.
 *
 * Files are JSON (`.json`) or YAML (anything else, e.g. `.yaml`/`.yml`);
 * unknown keys are rejected so a typo fails loudly with its key path.
 */
import { readFile } from 'node:fs/promises';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ZunoError } from '../../core/errors.js';

const tokenCount = z.number().int().nonnegative();

/**
 * Usage reported in the final chunk (wire names in brackets). Only the fields
 * given are sent; a field left out is absent on the wire (so the adapter must
 * report it as unknown, PR11).
 */
export const ScriptUsageSchema = z
  .strictObject({
    /** `prompt_tokens` */
    inputTokens: tokenCount.optional(),
    /** `completion_tokens` */
    outputTokens: tokenCount.optional(),
    /** `prompt_tokens_details.cached_tokens` */
    cachedInputTokens: tokenCount.optional(),
    /** `completion_tokens_details.reasoning_tokens` */
    reasoningTokens: tokenCount.optional(),
    /** `total_tokens` */
    totalTokens: tokenCount.optional(),
  })
  .describe('usage sent in the final chunk; omitted fields are not sent');

/** One scripted tool call. */
export const ScriptToolCallSchema = z
  .strictObject({
    /** Tool name as the model "writes" it (may name a tool that does not exist). */
    name: z.string().min(1),
    /**
     * Arguments. An object is sent as `JSON.stringify(object)`; a string is
     * sent verbatim, so malformed JSON can be scripted. Streamed in 2+ pieces.
     */
    arguments: z.union([z.record(z.string(), z.unknown()), z.string()]),
    /** Call id; default `call_<reply>_<call>` (both 0-based). */
    id: z.string().min(1).optional(),
  })
  .describe('one tool call: id+name stream first, then the arguments in pieces');

/**
 * A fault injected before (or instead of) a normal reply. Exactly one kind:
 *
 * - `status` (400–599): answer with that HTTP status and an OpenAI-style JSON
 *   error body (`message`, `code` override the defaults), plus a `Retry-After`
 *   header when `retryAfter` is given (sent verbatim, so invalid values can be
 *   scripted). Repeats for `times` requests (default 1), then the reply is served.
 * - `cutStream: true`: stream part of the reply, then end the body without
 *   `finish_reason` or `[DONE]` (`mode: "end"`, default: a clean end of the
 *   chunked body; `mode: "destroy"`: the socket is destroyed). `times` as above.
 * - `malformedChunk: true`: after the first chunk, send a `data:` line that is
 *   not valid JSON and end. `times` as above.
 * - `delayMs`: serve the reply normally but wait `delayMs` ms before the
 *   response headers (`between: "headers"`, default) or before every chunk
 *   (`between: "chunks"`). This consumes the reply (it is a slow answer, not a failure).
 */
export const ScriptFaultSchema = z
  .strictObject({
    status: z.number().int().min(400).max(599).optional(),
    retryAfter: z.string().optional(),
    message: z.string().optional(),
    code: z.string().min(1).optional(),
    cutStream: z.literal(true).optional(),
    mode: z.enum(['end', 'destroy']).optional(),
    malformedChunk: z.literal(true).optional(),
    delayMs: z.number().int().nonnegative().max(600_000).optional(),
    between: z.enum(['headers', 'chunks']).optional(),
    /** How many requests get the fault before the reply is served (status/cutStream/malformedChunk). */
    times: z.number().int().min(1).max(1000).optional(),
  })
  .superRefine((f, ctx) => {
    const kinds = (['status', 'cutStream', 'malformedChunk', 'delayMs'] as const).filter((k) => f[k] !== undefined);
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          kinds.length === 0
            ? 'a fault needs exactly one of status, cutStream, malformedChunk, delayMs'
            : `a fault takes exactly one of status, cutStream, malformedChunk, delayMs (got ${kinds.join(', ')})`,
      });
      return;
    }
    const only = (key: 'retryAfter' | 'message' | 'code' | 'mode' | 'between' | 'times', allowed: string[]): void => {
      if (f[key] !== undefined && !allowed.includes(kinds[0] as string)) {
        ctx.addIssue({
          code: 'custom',
          path: [key],
          message: `"${key}" only applies to a fault with ${allowed.join(' or ')}`,
        });
      }
    };
    only('retryAfter', ['status']);
    only('message', ['status']);
    only('code', ['status']);
    only('mode', ['cutStream']);
    only('between', ['delayMs']);
    only('times', ['status', 'cutStream', 'malformedChunk']);
  })
  .describe('fault injected for retries tests');

/**
 * One scripted reply.
 *
 * Normal replies stream: a role chunk, `reasoning` as several
 * `reasoning_content` deltas, `text` as several `content` deltas, then each
 * tool call (id + name, then arguments in 2+ pieces; `interleaveToolCalls`
 * streams all headers first and then the argument pieces round-robin), a
 * chunk carrying `finish_reason`, a usage chunk (only when the request asked
 * for `stream_options.include_usage`; `usage: null` suppresses it; absent →
 * an estimate with prompt/completion/total only), then `data: [DONE]`
 * (`done: false` omits it).
 *
 * `finishReason` defaults to `tool_calls` when there are tool calls, else
 * `stop`; `null` sends no finish_reason at all. Any other string is sent as is.
 *
 * `chunks` replays recorded `chat.completion.chunk` objects verbatim instead
 * (e.g. the peer-case `.chunks.txt` lines) and cannot be combined with
 * text/reasoning/toolCalls/finishReason/usage/interleaveToolCalls.
 */
export const ScriptReplySchema = z
  .strictObject({
    text: z.string().optional(),
    reasoning: z.string().optional(),
    toolCalls: z.array(ScriptToolCallSchema).optional(),
    interleaveToolCalls: z.boolean().optional(),
    finishReason: z.union([z.string().min(1), z.null()]).optional(),
    usage: z.union([ScriptUsageSchema, z.null()]).optional(),
    chunks: z.array(z.record(z.string(), z.unknown())).optional(),
    done: z.boolean().optional(),
    fault: ScriptFaultSchema.optional(),
  })
  .superRefine((r, ctx) => {
    if (r.chunks === undefined) return;
    for (const key of ['text', 'reasoning', 'toolCalls', 'interleaveToolCalls', 'finishReason', 'usage'] as const) {
      if (r[key] !== undefined) {
        ctx.addIssue({ code: 'custom', path: [key], message: `"${key}" cannot be combined with "chunks"` });
      }
    }
  });

/** A whole script. */
export const ScriptSchema = z
  .strictObject({
    /** Free text for humans. */
    description: z.string().optional(),
    /** Model id listed by `GET /v1/models` (default `zuno-local`). Chunks echo the requested model. */
    model: z.string().min(1).optional(),
    /**
     * When set, requests must send `Authorization: Bearer <apiKey>`; others get
     * 401 `invalid_api_key` whose message echoes the key received (as some real
     * providers do), so tests can prove the client redacts it.
     */
    apiKey: z.string().min(1).optional(),
    /** Replies, served in order, one per successful request. */
    replies: z.array(ScriptReplySchema),
  })
  .describe('zuno local provider script');

export type Script = z.infer<typeof ScriptSchema>;
export type ScriptReply = z.infer<typeof ScriptReplySchema>;
export type ScriptToolCall = z.infer<typeof ScriptToolCallSchema>;
export type ScriptFault = z.infer<typeof ScriptFaultSchema>;
export type ScriptUsage = z.infer<typeof ScriptUsageSchema>;

/** Format a zod issue path as `replies[2].toolCalls[0].name` (`(root)` when empty). */
export function formatIssuePath(path: readonly PropertyKey[]): string {
  let out = '';
  for (const seg of path) {
    if (typeof seg === 'number') out += `[${seg}]`;
    else out += out === '' ? String(seg) : `.${String(seg)}`;
  }
  return out === '' ? '(root)' : out;
}

/** One problem of an invalid script: key path and message. */
export interface ScriptIssue {
  path: string;
  message: string;
}

function scriptInvalid(
  source: string,
  what: string,
  issues: ScriptIssue[] = [],
  reason: 'unreadable' | 'syntax' | 'schema' = 'schema',
): ZunoError {
  const listed = issues
    .slice(0, 10)
    .map((i) => `${i.path}: ${i.message}`)
    .join('; ');
  const more = issues.length > 10 ? `; and ${issues.length - 10} more` : '';
  return new ZunoError(
    'script_invalid',
    `invalid provider script ${source}: ${what}${listed !== '' ? ` ${listed}${more}` : ''}`,
    {
      file: source,
      reason,
      issues: issues.slice(0, 50),
    },
  );
}

/**
 * Validate an already-parsed script value.
 *
 * @param value the parsed JSON/YAML value (or an inline object)
 * @param source name used in the error message (a file path, or `<inline script>`)
 * @throws ZunoError `script_invalid` whose message names `source` and each
 *   offending key path (zod issue path; for an unknown key, the key itself,
 *   e.g. `replies[0].toolcalls: unknown key`); `details.issues` lists them.
 */
export function parseScript(value: unknown, source = '<inline script>'): Script {
  const r = ScriptSchema.safeParse(value);
  if (r.success) return r.data;
  const issues: ScriptIssue[] = [];
  for (const issue of r.error.issues) {
    if (issue.code === 'unrecognized_keys') {
      for (const key of issue.keys)
        issues.push({ path: formatIssuePath([...issue.path, key]), message: 'unknown key' });
    } else {
      issues.push({ path: formatIssuePath(issue.path), message: issue.message });
    }
  }
  throw scriptInvalid(source, 'schema violation at', issues, 'schema');
}

/**
 * Read and validate a script file. `.json` files are parsed as JSON, every
 * other extension as YAML (YAML 1.2, so JSON content also works).
 *
 * @param path file path (relative to the process cwd or absolute)
 * @throws ZunoError `script_invalid` naming the file: unreadable file
 *   (`details.reason: "unreadable"`), syntax error (`"syntax"`, with line
 *   where known), or schema violation (`"schema"`, naming each key path).
 */
export async function loadScript(path: string): Promise<Script> {
  let raw: string;
  try {
    raw = await readFile(path, 'utf8');
  } catch (err) {
    const code = (err as { code?: unknown }).code;
    throw scriptInvalid(path, `cannot read the file (${typeof code === 'string' ? code : 'error'})`, [], 'unreadable');
  }
  let value: unknown;
  if (/\.json$/i.test(path)) {
    try {
      value = JSON.parse(raw) as unknown;
    } catch (err) {
      throw scriptInvalid(path, `not valid JSON (${err instanceof Error ? err.message : 'parse error'})`, [], 'syntax');
    }
  } else {
    try {
      value = parseYaml(raw) as unknown;
    } catch (err) {
      const msg = err instanceof Error ? err.message.split('\n')[0] : 'parse error';
      throw scriptInvalid(path, `not valid YAML (${msg})`, [], 'syntax');
    }
  }
  return parseScript(value, path);
}
