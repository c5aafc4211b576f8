/**
 * Script format of the local provider server (DESIGN.md §6 "Models").
 *
 * A script is an ordered list of replies. Each model request — on any of the
 * three surfaces the server speaks (`POST …/chat/completions`, `…/responses`,
 * `…/messages`) — gets the reply of its conversation position (`replyBy`,
 * `position.ts`), rendered in the wire format of the surface that was called;
 * a reply with a `fault` first answers with that fault (`times` requests), so
 * retries of the same request see the fault and then the reply. See `README.md` in this folder for a worked example.
 *
 * Files are JSON (`.json`) or YAML (anything else, e.g. `.yaml`/`.yml`);
 * unknown keys are rejected so a typo fails loudly with its key path.
 */
import { readFile } from 'node:fs/promises';
import { dirname, isAbsolute, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { z } from 'zod';
import { ZunoError } from '../core/errors.js';

const tokenCount = z.number().int().nonnegative();

/**
 * Usage reported by the reply. Each number is written as given into the
 * called surface's own field (wire names: Chat Completions / Responses /
 * Anthropic Messages); no arithmetic happens, so a test states exactly what
 * the wire carries. Only the fields given are sent; a field left out is
 * absent on the wire (so the adapter must report it as unknown, PR11).
 */
export const ScriptUsageSchema = z
  .strictObject({
    /** `prompt_tokens` / `input_tokens` / `input_tokens` (Anthropic: the uncached part) */
    inputTokens: tokenCount.optional(),
    /** `completion_tokens` / `output_tokens` / `output_tokens` */
    outputTokens: tokenCount.optional(),
    /** `prompt_tokens_details.cached_tokens` / `input_tokens_details.cached_tokens` / `cache_read_input_tokens` */
    cachedInputTokens: tokenCount.optional(),
    /** Anthropic only: `cache_creation_input_tokens` (ignored on the OpenAI surfaces) */
    cacheWriteInputTokens: tokenCount.optional(),
    /** `completion_tokens_details.reasoning_tokens` / `output_tokens_details.reasoning_tokens` / `output_tokens_details.thinking_tokens` */
    reasoningTokens: tokenCount.optional(),
    /** `total_tokens` / `total_tokens` / (not sent: Anthropic has no total) */
    totalTokens: tokenCount.optional(),
  })
  .describe('usage of the reply; omitted fields are not sent');

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
 * One item of an ordered `output` list: exactly one of
 * `reasoning` (+ optional `capsule`), `redactedReasoning`, `text`, `toolCall`.
 */
export const ScriptOutputItemSchema = z
  .strictObject({
    /** Reasoning text: Chat `reasoning_content` deltas, Responses reasoning summary, Anthropic `thinking` block. */
    reasoning: z.string().optional(),
    /**
     * Opaque reasoning capsule of that reasoning (PR8): Responses
     * `encrypted_content` (sent only when the request has `include:
     * ["reasoning.encrypted_content"]`), Anthropic `signature`. Default: a
     * generated `enc_local_…` / `sig_local_…` value. Ignored on Chat Completions.
     */
    capsule: z.string().min(1).optional(),
    /**
     * Anthropic `redacted_thinking` block data; on Responses a reasoning item
     * with no summary whose `encrypted_content` is this value (when
     * requested); skipped on Chat Completions.
     */
    redactedReasoning: z.string().min(1).optional(),
    /** Assistant text, streamed as several deltas. */
    text: z.string().optional(),
    /** One tool call. */
    toolCall: ScriptToolCallSchema.optional(),
  })
  .superRefine((item, ctx) => {
    const kinds = (['reasoning', 'redactedReasoning', 'text', 'toolCall'] as const).filter(
      (k) => item[k] !== undefined,
    );
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message: `an output item takes exactly one of reasoning, redactedReasoning, text, toolCall (got ${kinds.length === 0 ? 'none' : kinds.join(', ')})`,
      });
    }
    if (item.capsule !== undefined && item.reasoning === undefined) {
      ctx.addIssue({ code: 'custom', path: ['capsule'], message: '"capsule" only applies to a reasoning item' });
    }
  })
  .describe('one ordered output item');

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
 * - `streamError: true`: stream part of the reply, then the surface's
 *   in-stream error (Chat: a chunk with an `error` object; Responses: an
 *   `error` event then `response.failed`; Anthropic: an `error` event, default
 *   type `overloaded_error`) and end. `message`, `code` override the defaults;
 *   `times` as above.
 * - `contextLimit: true`: answer HTTP 400 with the surface's real
 *   context-limit error (`context-limit.ts`; the limit is the script's
 *   `contextWindow`, else one token less than the request's estimate).
 *   `times` as above.
 * - `delayMs`: serve the reply normally but wait `delayMs` ms before the
 *   response headers (`between: "headers"`, default) or before every chunk
 *   (`between: "chunks"`). This consumes the reply (it is a slow answer, not a failure).
 */
export const ScriptFaultSchema = z
  .strictObject({
    status: z.number().int().min(400).max(599).optional(),
    retryAfter: z
      .string()
      .regex(/^[^\r\n]*$/, 'a header value cannot contain CR or LF')
      .optional(),
    message: z.string().optional(),
    code: z.string().min(1).optional(),
    cutStream: z.literal(true).optional(),
    mode: z.enum(['end', 'destroy']).optional(),
    malformedChunk: z.literal(true).optional(),
    streamError: z.literal(true).optional(),
    contextLimit: z.literal(true).optional(),
    delayMs: z.number().int().nonnegative().max(600_000).optional(),
    between: z.enum(['headers', 'chunks']).optional(),
    /** How many requests get the fault before the reply is served (status/cutStream/malformedChunk/streamError). */
    times: z.number().int().min(1).max(1000).optional(),
  })
  .superRefine((f, ctx) => {
    const kinds = (['status', 'cutStream', 'malformedChunk', 'streamError', 'contextLimit', 'delayMs'] as const).filter(
      (k) => f[k] !== undefined,
    );
    if (kinds.length !== 1) {
      ctx.addIssue({
        code: 'custom',
        message:
          kinds.length === 0
            ? 'a fault needs exactly one of status, cutStream, malformedChunk, streamError, contextLimit, delayMs'
            : `a fault takes exactly one of status, cutStream, malformedChunk, streamError, contextLimit, delayMs (got ${kinds.join(', ')})`,
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
    only('message', ['status', 'streamError']);
    only('code', ['status', 'streamError']);
    only('mode', ['cutStream']);
    only('between', ['delayMs']);
    only('times', ['status', 'cutStream', 'malformedChunk', 'streamError', 'contextLimit']);
  })
  .describe('fault injected for retries tests');

/**
 * One scripted reply, rendered in the wire format of the surface called.
 *
 * Content, in stream order: `reasoning`, then `text`, then each of
 * `toolCalls` — or, for any other order, an explicit `output` list (which
 * cannot be combined with those three nor `reasoningCapsule`). Texts stream
 * as several deltas; tool-call arguments in 2+ pieces.
 *
 * - Chat Completions: a role chunk, `reasoning_content` deltas, `content`
 *   deltas, each tool call (id + name, then argument pieces;
 *   `interleaveToolCalls` streams all headers first and then the pieces
 *   round-robin), a chunk with `finish_reason`, a usage chunk (only when the
 *   request asked for `stream_options.include_usage`), then `data: [DONE]`.
 * - Responses: `response.created`, `response.in_progress`, per item
 *   `output_item.added` … `output_item.done` (reasoning summary deltas,
 *   `output_text.delta`, `function_call_arguments.delta`), then
 *   `response.completed` (or `response.incomplete`) carrying the usage.
 * - Anthropic Messages: `message_start` (input usage), `ping`, per item
 *   `content_block_start` / `content_block_delta`… / `content_block_stop`
 *   (thinking + `signature_delta`, text, tool_use + `input_json_delta`), then
 *   `message_delta` (stop_reason + usage) and `message_stop`.
 *
 * `finishReason` (Chat vocabulary) defaults to `tool_calls` when there are
 * tool calls, else `stop`; `null` sends none (Chat: no finish_reason;
 * Anthropic: `stop_reason: null`; Responses: `completed`). On Anthropic
 * stop/tool_calls/length/content_filter become end_turn/tool_use/max_tokens/
 * refusal; on Responses length/content_filter become `response.incomplete`
 * with reason max_output_tokens/content_filter. Any other string is sent as
 * is (Responses: as the incomplete reason).
 *
 * `usage`: absent → an estimate (input/output/total only); `null` → none
 * on the wire. `done: false` omits the closing marker (Chat `[DONE]`,
 * Responses `response.completed`, Anthropic `message_stop`).
 *
 * `chunks` replays recorded events verbatim instead: inline objects, or the
 * path of a `.chunks.txt` file (one JSON event per line, relative to the
 * script file; see `replay.ts`), framed for the surface called (`segment`
 * picks one stream of a file holding several back to back). A `.json` path is
 * served as a whole JSON body with HTTP `status` (default 200). `chunks`
 * cannot be combined with content, `finishReason`, `usage` or
 * `interleaveToolCalls`.
 */
export const ScriptReplySchema = z
  .strictObject({
    text: z.string().optional(),
    reasoning: z.string().optional(),
    /** Capsule of `reasoning` (see `ScriptOutputItemSchema.capsule`). */
    reasoningCapsule: z.string().min(1).optional(),
    toolCalls: z.array(ScriptToolCallSchema).optional(),
    output: z.array(ScriptOutputItemSchema).optional(),
    interleaveToolCalls: z.boolean().optional(),
    finishReason: z.union([z.string().min(1), z.null()]).optional(),
    usage: z.union([ScriptUsageSchema, z.null()]).optional(),
    chunks: z.union([z.array(z.record(z.string(), z.unknown())), z.string().min(1)]).optional(),
    /** 0-based stream of a multi-stream `.chunks.txt` (streams start at `response.created` / `message_start`). */
    segment: z.number().int().nonnegative().optional(),
    /** HTTP status of a `.json` replay (default 200). */
    status: z.number().int().min(200).max(599).optional(),
    done: z.boolean().optional(),
    fault: ScriptFaultSchema.optional(),
  })
  .superRefine((r, ctx) => {
    const issue = (key: string, message: string): void => {
      ctx.addIssue({ code: 'custom', path: [key], message });
    };
    if (r.output !== undefined) {
      for (const key of ['text', 'reasoning', 'reasoningCapsule', 'toolCalls'] as const) {
        if (r[key] !== undefined) issue(key, `"${key}" cannot be combined with "output"`);
      }
    }
    if (r.reasoningCapsule !== undefined && r.reasoning === undefined) {
      issue('reasoningCapsule', '"reasoningCapsule" needs "reasoning"');
    }
    if (r.chunks === undefined) {
      if (r.segment !== undefined) issue('segment', '"segment" only applies with a "chunks" file');
      if (r.status !== undefined) issue('status', '"status" only applies with a "chunks" .json file');
      return;
    }
    for (const key of [
      'text',
      'reasoning',
      'reasoningCapsule',
      'toolCalls',
      'output',
      'interleaveToolCalls',
      'finishReason',
      'usage',
    ] as const) {
      if (r[key] !== undefined) issue(key, `"${key}" cannot be combined with "chunks"`);
    }
    const file = typeof r.chunks === 'string' ? r.chunks : undefined;
    if (r.segment !== undefined && (file === undefined || /\.json$/i.test(file))) {
      issue('segment', '"segment" only applies with a .chunks.txt file');
    }
    if (r.status !== undefined && (file === undefined || !/\.json$/i.test(file))) {
      issue('status', '"status" only applies with a "chunks" .json file');
    }
  });

/** A whole script. */
export const ScriptSchema = z
  .strictObject({
    /** Free text for humans. */
    description: z.string().optional(),
    /** Model id listed by `GET /v1/models` (default `zuno-local`). Replies echo the requested model. */
    model: z.string().min(1).optional(),
    /**
     * When set, requests must send `Authorization: Bearer <apiKey>` (Chat
     * Completions, Responses) or `x-api-key: <apiKey>` (Anthropic Messages);
     * others get 401 whose message echoes the key received (as some real
     * providers do), so tests can prove the client redacts it.
     */
    apiKey: z.string().min(1).optional(),
    /**
     * How a request picks its reply. `position` (default): by the request's
     * conversation position (`position.ts`: model steps and user turns in its
     * history) — the first request at a new position takes the next reply not
     * yet given to any position, every later request at that position (a retry
     * of the same step, after a fault or a crash) gets that same reply again.
     * `arrival`: each request takes the next reply not yet served in full, in
     * arrival order, whatever its body (for wire tests that send one fixed
     * request over and over).
     */
    replyBy: z.enum(['position', 'arrival']).optional(),
    /**
     * The model's context window in tokens: a request whose estimate
     * (⌈characters / 4⌉ of its messages or input, system text and tools)
     * exceeds it is answered HTTP 400 with the surface's real context-limit
     * error, before any reply is consumed (`context-limit.ts`).
     */
    contextWindow: z.number().int().positive().optional(),
    /** Replies, given out in order (see `replyBy`); a faulted request keeps its reply current. */
    replies: z.array(ScriptReplySchema),
    /**
     * Conversations served from their own replies (several sessions on one
     * server: a parent and its delegated children, a Council's seats). A
     * request whose first user message contains `match` is a request of that
     * thread (the first thread that matches); its position is counted within
     * the thread. Other requests take the top-level `replies`. Only with
     * `replyBy: "position"`.
     */
    threads: z
      .array(
        z.strictObject({
          /** Text the thread's first user message contains (e.g. a words of a task objective, a seat's role). */
          match: z.string().min(1),
          replies: z.array(ScriptReplySchema),
        }),
      )
      .optional(),
  })
  .refine((s) => s.threads === undefined || s.replyBy !== 'arrival', {
    path: ['threads'],
    message: '"threads" only applies with replyBy "position"',
  })
  .describe('zuno local provider script');

export type Script = z.infer<typeof ScriptSchema>;
export type ScriptReply = z.infer<typeof ScriptReplySchema>;
export type ScriptToolCall = z.infer<typeof ScriptToolCallSchema>;
export type ScriptFault = z.infer<typeof ScriptFaultSchema>;
export type ScriptUsage = z.infer<typeof ScriptUsageSchema>;
export type ScriptOutputItem = z.infer<typeof ScriptOutputItemSchema>;

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

/**
 * The `script_invalid` error: message `invalid provider script <source>:
 * <what> <path>: <message>; …` (first 10 issues), `details` = `{file, reason, issues}`.
 */
export function scriptInvalid(
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
 * Relative `chunks` file paths are resolved against the script's folder
 * (the files themselves are read when the server starts, see `replay.ts`).
 *
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
  return withReplayPathsFrom(parseScript(value, path), dirname(resolve(path)));
}

/**
 * Resolve every relative `chunks` file path of `script` against `dir`
 * (`loadScript` uses the script file's folder; inline scripts are resolved
 * against the process cwd when the server starts). Returns a new script.
 */
export function withReplayPathsFrom(script: Script, dir: string): Script {
  const fix = (replies: ScriptReply[]): ScriptReply[] =>
    replies.map((r) =>
      typeof r.chunks === 'string' && !isAbsolute(r.chunks) ? { ...r, chunks: resolve(dir, r.chunks) } : r,
    );
  return {
    ...script,
    replies: fix(script.replies),
    ...(script.threads ? { threads: script.threads.map((t) => ({ ...t, replies: fix(t.replies) })) } : {}),
  };
}

/**
 * The replies of `script` as one list — the top-level ones, then each
 * thread's — with where each conversation's replies start and end in it.
 * Thread 0 is the top level; thread i+1 is `threads[i]`.
 */
export function flattenThreads(script: Script): {
  replies: ScriptReply[];
  ranges: { start: number; end: number; match?: string }[];
} {
  const replies = [...script.replies];
  const ranges: { start: number; end: number; match?: string }[] = [{ start: 0, end: replies.length }];
  for (const t of script.threads ?? []) {
    ranges.push({ start: replies.length, end: replies.length + t.replies.length, match: t.match });
    replies.push(...t.replies);
  }
  return { replies, ranges };
}
