/**
 * Declaration of the `task` tool (DC1, DC10, DC16; issue 12 item 2). One
 * bounded delegation to a child agent: a child `session` workflow started
 * by the parent's workflow (workflows/delegation.ts), never an activity.
 * The contract is flat — `agent, objective, deliverable, instructions,
 * success_evidence`, all required strings — plus `background` (DC16
 * SEED-GAP: a top-level boolean, default false; `reportDelivery` is always
 * `nextStep` and is not an argument). `intent` is a UI label, removed before
 * parsing. Missing-field feedback (DC10) comes from {@link taskArgumentNotes}.
 * Deterministic: zod + pure code only.
 */
import { hasPrintable } from '../terminal-text.js';
import { NO_PRINTABLE } from './printable.js';
import { z } from 'zod';
import { agentRole, delegableAgents } from '../agents.js';
import { utf8ByteLength } from '../utf8.js';
import type { DelegatingToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** The five contract fields, in the order the model is told about them (DC1). */
export const TASK_FIELDS = ['agent', 'objective', 'deliverable', 'instructions', 'success_evidence'] as const;

/** One note per contract field (DC10: ≤ 256 characters each, never a copy of an argument value). */
const FIELD_NOTES: Record<(typeof TASK_FIELDS)[number], string> = {
  agent: `agent: the child role that does the work, one of ${delegableAgents().join(', ')}.`,
  objective: 'objective: the one bounded outcome the child must reach, in a sentence.',
  deliverable: 'deliverable: what the child hands back (a report, a patch applied to named files, a list…).',
  instructions: 'instructions: scope, constraints and what not to touch.',
  success_evidence:
    'success_evidence: what proves the deliverable is right (a test that passes, file:line references…).',
};

/** Longest field name a note is given for (DC10: names > 128 bytes get no hint). */
const HINTED_NAME_MAX_BYTES = 128;
/** At most this many notes (DC10). */
const MAX_NOTES = 4;
const NOTE_MAX_CHARS = 256;

/** Longest contract field, in characters: the contract is a brief; long material belongs in a file the child reads. */
export const TASK_FIELD_MAX_CHARS = 8_000;

const field = (name: string) =>
  z
    .string({ error: (i) => (i.input === undefined ? `${name} is required` : `${name} must be a string`) })
    .refine((s) => s.trim().length > 0, `${name} must not be empty`)
    .refine((s) => s.trim().length === 0 || hasPrintable(s), `${name} ${NO_PRINTABLE}`)
    .refine(
      (s) => s.length <= TASK_FIELD_MAX_CHARS,
      `${name} is longer than ${TASK_FIELD_MAX_CHARS} characters; keep the brief short and put long material in a file the child can read`,
    );

/** Arguments of `task` after `intent` is stripped. */
export const taskArgs = z.preprocess(
  stripIntent,
  z.strictObject({
    agent: field('agent').superRefine((a, ctx) => {
      if (delegableAgents().includes(a)) return;
      const why = agentRole(a) ? 'this role cannot be delegated to' : 'unknown agent';
      ctx.addIssue({ code: 'custom', message: `${why}; use one of ${delegableAgents().join(', ')}` });
    }),
    objective: field('objective'),
    deliverable: field('deliverable'),
    instructions: field('instructions'),
    success_evidence: field('success_evidence'),
    /** Run the child in the background and return a job id at once (DC3: only for an explicit parallel split). */
    background: z.boolean().optional(),
  }),
);
export type TaskArgs = {
  agent: string;
  objective: string;
  deliverable: string;
  instructions: string;
  success_evidence: string;
  background?: boolean;
};

/** `intent` is only a UI label (DC10, TC9): removed before typed parsing, never turned into another field. */
function stripIntent(raw: unknown): unknown {
  if (raw === null || typeof raw !== 'object' || Array.isArray(raw) || !('intent' in raw)) return raw;
  const { intent: _intent, ...rest } = raw as Record<string, unknown>;
  return rest;
}

/**
 * DC10 feedback for a rejected `task` call: for each missing top-level
 * contract field, one note about that field; a note that the fields are not
 * nested (when a `contract`-like object holds them). At most 4 notes of at
 * most 256 characters; a nested error never borrows a top-level note; no
 * argument value is ever copied; field names over 128 bytes get none.
 */
export function taskArgumentNotes(
  raw: unknown,
  issues: readonly { path: readonly PropertyKey[]; code?: string }[],
): string[] {
  const notes: string[] = [];
  const top = raw !== null && typeof raw === 'object' && !Array.isArray(raw) ? (raw as Record<string, unknown>) : {};
  const missing = new Set(
    issues
      .filter((i) => i.path.length === 1 && typeof i.path[0] === 'string' && top[i.path[0]] === undefined)
      .map((i) => i.path[0] as string),
  );
  const nested = Object.entries(top).some(
    ([k, v]) =>
      !(TASK_FIELDS as readonly string[]).includes(k) &&
      v !== null &&
      typeof v === 'object' &&
      TASK_FIELDS.some((f) => f in (v as object)),
  );
  if (nested)
    notes.push('The contract fields are top-level arguments of task; do not nest them inside another object.');
  for (const f of TASK_FIELDS) {
    if (!missing.has(f) || utf8ByteLength(f) > HINTED_NAME_MAX_BYTES) continue;
    notes.push(FIELD_NOTES[f]);
  }
  return notes.slice(0, MAX_NOTES).map((n) => (n.length > NOTE_MAX_CHARS ? `${n.slice(0, NOTE_MAX_CHARS - 1)}…` : n));
}

/**
 * `task`: TD1 Delegating; replay Never (a failed child is never replayed,
 * DC13: its workflow is started once, by id); ParallelSafe (several
 * background children may be started in one step, DC11).
 */
export const taskDeclaration: DelegatingToolDeclaration<TaskArgs> = {
  name: 'task',
  effect: 'Delegating',
  replay: 'Never',
  concurrency: 'ParallelSafe',
  args: taskArgs as unknown as z.ZodType<TaskArgs>,
  summarize: (a) => summaryLine(`task ${a.agent}${a.background ? ' (background)' : ''}: ${a.objective}`),
  delegation: 'task',
  argumentNotes: taskArgumentNotes,
};
