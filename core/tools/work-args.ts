/**
 * Argument fields shared by the work-state tools (`plan_update`,
 * `todo_update`): their limits and descriptions. Deterministic: zod only.
 */
import { z } from 'zod';
import { printableText } from './printable.js';

/** Longest step or Todo title, in UTF-16 units. */
export const WORK_TITLE_MAX_CHARS = 200;
/** Longest acceptance text or blocked reason, in UTF-16 units. */
export const WORK_NOTE_MAX_CHARS = 500;

/** A title (one line of what the step or Todo does). */
export const workTitle = printableText(WORK_TITLE_MAX_CHARS);
/** A longer note: acceptance text, a blocked reason. */
export const workNote = z.string().trim().min(1).max(WORK_NOTE_MAX_CHARS);
/** A revision as plan_get / todo_get returned it. */
export const workRevision = z.number().int().min(0);

/** Adds one issue at `path` (a per-action check of an action-tagged schema, GP21). */
export function workIssue(ctx: z.RefinementCtx, path: (string | number)[], message: string): void {
  ctx.addIssue({ code: 'custom', path, message });
}
