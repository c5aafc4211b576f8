/**
 * The eval's tasks: each folder's task.json (its definition) with the checker
 * its check.ts exports. Adding a task: a folder, and one line here.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Checker } from '../checks.js';
import { taskDir } from '../paths.js';
import type { TaskDef } from '../types.js';
import { check as bytesGoal } from './bytes-goal/check.js';
import { check as escapeHtmlQuote } from './escape-html-quote/check.js';
import { check as fastDeepEqualKeys } from './fast-deep-equal-keys/check.js';
import { check as isNumberBlank } from './is-number-blank/check.js';
import { check as kleurDelegate } from './kleur-delegate/check.js';
import { check as msPlural } from './ms-plural/check.js';
import { check as picomatchPosixPlan } from './picomatch-posix-plan/check.js';
import { check as semverGtCouncil } from './semver-gt-council/check.js';

/** A task: its definition and its checker. */
export interface EvalTask {
  def: TaskDef;
  check: Checker;
}

const CHECKERS: Record<string, Checker> = {
  'ms-plural': msPlural,
  'escape-html-quote': escapeHtmlQuote,
  'is-number-blank': isNumberBlank,
  'fast-deep-equal-keys': fastDeepEqualKeys,
  'semver-gt-council': semverGtCouncil,
  'kleur-delegate': kleurDelegate,
  'bytes-goal': bytesGoal,
  'picomatch-posix-plan': picomatchPosixPlan,
};

/** Every task id, in the order they run and are reported. */
export const TASK_IDS = Object.keys(CHECKERS);

/** The task `id`: eval/tasks/<id>/task.json and its checker. @throws for an unknown id or a task.json whose id differs. */
export function loadTask(id: string): EvalTask {
  const check = CHECKERS[id];
  if (!check) throw new Error(`unknown task ${id}; tasks: ${TASK_IDS.join(', ')}`);
  const def = JSON.parse(readFileSync(join(taskDir(id), 'task.json'), 'utf8')) as TaskDef;
  if (def.id !== id) throw new Error(`eval/tasks/${id}/task.json names the id ${def.id}`);
  return { def, check };
}
