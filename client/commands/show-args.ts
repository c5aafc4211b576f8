/**
 * A tool call's arguments as people read them in `zuno session show`: the
 * tool's own one-line summary (its declaration's `summarize`, the line the
 * Temporal UI shows) and one readable line or block per field, never the
 * escaped JSON the model sent. Fields a declaration lists in `changeArgs`
 * (a patch, a file's new content) are shown as a diff or text block, or left
 * out when the recorded diff shows the change. Pure.
 */
import { toolDeclarations, validateToolCall } from '../../core/tools/registry.js';
import type { ChangeArg } from '../../core/tools/types.js';
import { paintDiffLine } from './show-diff.js';
import { blockLines, cutProse, LIMITS, omissionNote, type ShowView } from './show-text.js';

/**
 * The tool's summary of one call, e.g. `grep: TODO in src` or
 * `apply_patch: src/a.ts (+1 more)`; the bare tool name when the tool is
 * unknown or the arguments do not validate.
 */
export function callSummary(tool: string, argsJson: string): string {
  const v = validateToolCall(tool, argsJson);
  if (!v.ok) return tool;
  try {
    return v.declaration.summarize(v.args) || tool;
  } catch {
    return tool;
  }
}

/** The `changeArgs` a tool declares (none for an unknown tool). */
function changeArgsOf(tool: string): Readonly<Record<string, ChangeArg>> {
  const decl = Object.prototype.hasOwnProperty.call(toolDeclarations, tool) ? toolDeclarations[tool] : undefined;
  return decl?.changeArgs ?? {};
}

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

/** A list item's label in {@link valueLines}. */
const ITEM = '-';

/**
 * One field (or list item, label `-`) as lines: `key: value`, or `key:`
 * and an indented block for multi-line text, lists and objects.
 */
function valueLines(label: string, value: Json, indent: string, view: ShowView, kind?: ChangeArg): string[] {
  const inline = (text: string) => `${indent}${label}${label === ITEM ? ' ' : ': '}${text}`;
  const opener = `${indent}${label}${label === ITEM ? '' : ':'}`;
  const inner = `${indent}  `;
  if (typeof value === 'string') {
    if (value === '') return [inline('(empty)')];
    if (kind || value.includes('\n')) {
      return [
        opener,
        ...blockLines(value, view, {
          lines: LIMITS.blockLines,
          chars: LIMITS.blockChars,
          prefix: inner,
          noteIndent: inner,
          ...(kind === 'patch' && view.color ? { paint: paintDiffLine } : {}),
        }),
      ];
    }
    const cut = view.full ? { shown: value, omittedChars: 0 } : cutProse(value, LIMITS.blockChars);
    return [inline(cut.shown), ...(cut.omittedChars > 0 ? [`${inner}${omissionNote(view, cut.omittedChars)}`] : [])];
  }
  if (value === null || typeof value !== 'object') return [inline(String(value))];
  const entries: [string, Json][] = Array.isArray(value) ? value.map((v) => [ITEM, v]) : Object.entries(value);
  if (entries.length === 0) return [inline('(none)')];
  return [opener, ...entries.flatMap(([k, v]) => valueLines(k, v, inner, view))];
}

/**
 * Readable lines for a call's arguments, each starting with `indent`: one
 * `field: value` line per scalar field, `field:` plus an indented block for
 * multi-line text, lists and objects (patch text coloured like a diff on a
 * terminal). Arguments that are not JSON are shown as their raw text.
 * @param opts.changeShown true when the recorded diff already shows the
 *   change: the tool's `changeArgs` fields are then left out.
 */
export function argumentLines(
  tool: string,
  argsJson: string,
  view: ShowView,
  indent: string,
  opts: { changeShown: boolean },
): string[] {
  if (argsJson.trim() === '') return [];
  let args: Json;
  try {
    args = JSON.parse(argsJson) as Json;
  } catch {
    return valueLines('arguments (not valid JSON)', `${argsJson}\n`, indent, view);
  }
  if (args === null || typeof args !== 'object' || Array.isArray(args)) {
    return valueLines('arguments', args, indent, view);
  }
  const change = changeArgsOf(tool);
  return Object.entries(args).flatMap(([k, v]) => {
    const kind = Object.prototype.hasOwnProperty.call(change, k) ? change[k] : undefined;
    if (kind && opts.changeShown) return [];
    return valueLines(k, v, indent, view, kind);
  });
}
