/**
 * The request and response shapes of `zuno serve` (issue 29, SF6), as zod
 * schemas: the routes validate with them and the OpenAPI document at `/doc`
 * is generated from them, so the two cannot drift. Values the CLI checks
 * come from the CLI's own lists and limits (session statuses, approval
 * decisions, message and pattern lengths, id shapes).
 */
import { isAbsolute } from 'node:path';
import { z } from '@hono/zod-openapi';
import { APPROVAL_MESSAGE_MAX, APPROVAL_PATTERN_MAX } from '../../core/approval-contract.js';
import { SESSION_STATUSES } from '../commands/session-list.js';

/** `{error: {code, message}}`: every failed response. */
export const ErrorSchema = z
  .object({ error: z.object({ code: z.string(), message: z.string() }) })
  .openapi('Error', { example: { error: { code: 'session_not_found', message: 'no session ses_x in this home' } } });

/** A session id (`ses_…`, as `checkSessionId` accepts it). */
export const SessionId = z.string().regex(/^ses_[0-9A-Za-z_-]{1,100}$/);

/** Path parameter `id` of the session routes. */
export const SessionParams = z.object({
  id: SessionId.openapi({ param: { name: 'id', in: 'path' }, example: 'ses_mfz0k1a2b3c4d5e6' }),
});

/** A client's idempotency key (SE2): a resend returns the first receipt, never a second input. */
const ClientMessageId = z.string().min(1).max(200);

/** A workspace directory on the server's machine: absolute (a relative one would name the server's cwd). */
const absolutePath = z
  .string()
  .min(1)
  .max(4096)
  .refine((p) => isAbsolute(p), { message: 'must be an absolute path on the server' });

/** Text of a prompt (at most 256 KiB of characters, inside the 1 MiB body limit). */
const PromptText = z
  .string()
  .min(1)
  .max(256 * 1024);

/** One session as `zuno session list --json` prints it. */
export const SessionSummarySchema = z
  .object({
    id: z.string(),
    title: z.string().nullable(),
    status: z.enum(SESSION_STATUSES as [string, ...string[]]),
    workspace: z.string(),
    model: z.string(),
    host: z.string().nullable(),
    agent: z.string().nullable(),
    parentSessionId: z.string().nullable(),
    rootSessionId: z.string().nullable(),
    depth: z.number().int().nullable(),
    lastActivityAtMs: z.number().int(),
    createdAtMs: z.number().int(),
  })
  .openapi('SessionSummary');

/** Query of `GET /sessions`. */
export const SessionListQuery = z.object({
  status: z.enum(SESSION_STATUSES as [string, ...string[]]).optional(),
  limit: z.coerce.number().int().min(1).max(1000).optional(),
});

/** Body of `POST /sessions`: a new session and its first prompt, as `zuno run` takes them. */
export const CreateSessionSchema = z
  .object({
    text: PromptText,
    workspace: absolutePath.openapi({ description: 'absolute path of the workspace directory' }),
    agent: z.string().min(1).max(100).optional(),
    model: z.string().min(1).max(200).optional().openapi({ description: 'provider/model; default zuno.json "model"' }),
    clientMessageId: ClientMessageId.optional(),
  })
  .strict()
  .openapi('CreateSession');

/** Body of `POST /sessions/{id}/prompt`: the next input of a session. */
export const PromptSchema = z
  .object({
    text: PromptText,
    model: z.string().min(1).max(200).optional(),
    clientMessageId: ClientMessageId.optional(),
  })
  .strict()
  .openapi('Prompt');

/** The receipt of an admitted prompt (SE1). */
export const AdmissionSchema = z
  .object({
    sessionId: z.string(),
    inputId: z.string(),
    status: z.enum(['driven', 'steered', 'pending']),
    duplicate: z.boolean(),
    after: z.number().int().openapi({
      description:
        "the session's last event seq before the input: stream /sessions/{id}/events with Last-Event-ID = after",
    }),
  })
  .openapi('Admission');

/** The receipt of `POST /sessions/{id}/interrupt` (as `zuno session interrupt --json`). */
export const InterruptSchema = z
  .object({
    sessionId: z.string(),
    interrupted: z.boolean(),
    turn: z.number().int(),
    phase: z.string(),
    alreadyRequested: z.boolean(),
    backgroundCancelled: z.array(z.string()),
  })
  .openapi('InterruptReceipt');

/** A stored record passed through as stored (a transcript, an approval row, a Goal): fields as `--json` prints them. */
export const StoredSchema = z.record(z.string(), z.unknown()).openapi('Stored');

/** Query of the approval and question lists. */
export const PendingQuery = z.object({ session: SessionId.optional() });

/** Path parameter `id` of an approval (`ap_<n>_<n>_<n>`). */
export const ApprovalParams = z.object({
  id: z
    .string()
    .regex(/^ap_\d+_\d+_\d+$/)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'ap_0_1_0' }),
});

/** Path parameter `id` of a question (`q_<n>_<n>_<n>`). */
export const QuestionParams = z.object({
  id: z
    .string()
    .regex(/^q_\d+_\d+_\d+$/)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'q_0_1_0' }),
});

/** A command id: the idempotency key of a decision or an answer. */
const CommandId = z.string().min(1).max(200);

/** Body of `POST /approvals/{id}/decision`. */
export const DecisionSchema = z
  .object({
    sessionId: SessionId.optional().openapi({ description: 'needed when several sessions have this approval id' }),
    decision: z.enum(['approve_once', 'approve_session', 'deny']),
    commandId: CommandId,
    expectedRevision: z.number().int().min(0).openapi({ description: "the approval row's revision as listed" }),
    message: z
      .string()
      .max(APPROVAL_MESSAGE_MAX)
      .optional()
      .openapi({ description: 'with deny: what the model is told' }),
    pattern: z
      .string()
      .min(1)
      .max(APPROVAL_PATTERN_MAX)
      .optional()
      .openapi({ description: 'with approve_session: the glob the grant covers instead of the exact text' }),
  })
  .strict()
  .openapi('Decision');

/** The workflow's answer to a decision. */
export const DecisionResultSchema = z
  .object({
    sessionId: z.string(),
    approvalId: z.string(),
    decision: z.enum(['approve_once', 'approve_session', 'deny']),
    revision: z.number().int(),
    duplicate: z.boolean(),
    grant: z.record(z.string(), z.unknown()).optional(),
  })
  .openapi('DecisionResult');

/** Body of `POST /questions/{id}/answer`. */
export const AnswerSchema = z
  .object({
    sessionId: SessionId.optional(),
    answers: z.record(
      z.string().min(1).max(100),
      z
        .string()
        .min(1)
        .max(64 * 1024),
    ),
    commandId: CommandId,
    expectedRevision: z.number().int().min(0),
  })
  .strict()
  .openapi('Answer');

/** The workflow's answer to an answer. */
export const AnswerResultSchema = z
  .object({
    sessionId: z.string(),
    questionId: z.string(),
    revision: z.number().int(),
    status: z.enum(['pending', 'answered']),
    pendingItems: z.array(z.string()),
    inputId: z.string().optional(),
    duplicate: z.boolean(),
  })
  .openapi('AnswerResult');

/** One SSE message's data: the stored event, unchanged (its `seq` is also the SSE id, its `type` the event name). */
export const EventSchema = z
  .object({
    seq: z.number().int(),
    id: z.string(),
    sessionId: z.string(),
    type: z.string(),
    data: z.record(z.string(), z.unknown()),
    atMs: z.number().int(),
  })
  .openapi('Event');

/** Path parameter `id` of a Goal (`goal_…`). */
export const GoalParams = z.object({
  id: z
    .string()
    .regex(/^goal_[0-9A-Za-z_-]{1,100}$/)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'goal_mfz0k1a2b3c4d5e6' }),
});

/** Path parameter `id` of a Council run (`cr_…`). */
export const CouncilParams = z.object({
  id: z
    .string()
    .regex(/^cr_[a-z0-9]{4,40}$/)
    .openapi({ param: { name: 'id', in: 'path' }, example: 'cr_mfz0k1a2b3c4d5e6' }),
});

/** Goal budgets as `zuno goal start` takes them (text: `200000`, `30m`, …). */
const BudgetsSchema = z
  .object({
    tokenBudget: z.string().max(40).optional(),
    turnBudget: z.string().max(40).optional(),
    toolCallBudget: z.string().max(40).optional(),
    timeBudget: z.string().max(40).optional(),
  })
  .strict()
  .openapi('GoalBudgets');

/** Body of `POST /goals`: as `zuno goal start`. */
export const GoalStartSchema = z
  .object({
    objective: z
      .string()
      .min(1)
      .max(64 * 1024),
    workspace: absolutePath,
    criteria: z.array(z.string().min(1).max(4096)).max(50).optional(),
    evidenceCriteria: z.array(z.string().min(1).max(4096)).max(50).optional(),
    budgets: BudgetsSchema.optional(),
    model: z.string().min(1).max(200).optional(),
  })
  .strict()
  .openapi('GoalStart');

/** A started Goal. */
export const GoalStartedSchema = z.object({ goalId: z.string(), sessionId: z.string() }).openapi('GoalStarted');

/** Body of `POST /goals/{id}/control`: as `zuno goal pause|cancel|budgets`. */
export const GoalControlSchema = z
  .object({
    action: z.enum(['pause', 'cancel', 'budgets']),
    expectedRevision: z
      .number()
      .int()
      .min(0)
      .optional()
      .openapi({ description: "the Goal's revision as shown; absent: the current one" }),
    budgets: BudgetsSchema.optional().openapi({ description: 'with budgets: the budgets to set (others stay)' }),
  })
  .strict()
  .openapi('GoalControl');

/** The Goal workflow's answer to a control. */
export const GoalControlResultSchema = z
  .object({ goalId: z.string(), revision: z.number().int(), status: z.string(), message: z.string() })
  .openapi('GoalControlResult');

/** Body of `POST /councils`: as `zuno council run`. */
export const CouncilStartSchema = z
  .object({
    question: z
      .string()
      .min(1)
      .max(64 * 1024),
    workspace: absolutePath,
    preset: z.string().min(1).max(100).optional(),
    diff: z.string().min(1).max(400).optional().openapi({ description: 'a git range to review, e.g. main..HEAD' }),
    model: z.string().min(1).max(200).optional(),
  })
  .strict()
  .openapi('CouncilStart');

/** A started (or cancelled) Council. */
export const CouncilRunSchema = z.object({ runId: z.string() }).openapi('CouncilRun');
