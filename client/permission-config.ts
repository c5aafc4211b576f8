/**
 * `zuno.json` `permission` (PM10 SEED-GAP, docs/permissions.md): the mode and
 * the ordered rules, validated and parsed into a PermissionPolicy
 * (core/permission/types.ts).
 *
 * ```json
 * "permission": {
 *   "mode": "standard",
 *   "rules": { "edit": "ask", "shell": { "*": "ask", "git *": "allow", "git push*": "deny" } }
 * }
 * ```
 * or, the same rules in the array form (order is plain to see, a tool may come back):
 * ```json
 * "rules": [
 *   { "tool": "edit", "action": "ask" },
 *   { "tool": "shell", "pattern": "*", "action": "ask" },
 *   { "tool": "shell", "pattern": "git *", "action": "allow" }
 * ]
 * ```
 */
import { z } from 'zod';
import { isPermissionRuleKey, PERMISSION_GROUPS, ANY_TOOL } from '../core/permission/rules.js';
import type { PermissionPolicy, PermissionRule } from '../core/permission/types.js';
import { declaredTools } from '../core/tools/registry.js';

const ActionSchema = z.enum(['allow', 'ask', 'deny']);
const ModeSchema = z.enum(['standard', 'strict', 'allow_all']);
const PatternSchema = z.string().min(1, 'an empty pattern; use "*" for every subject');

/** A tool key a rule may name (a declared tool, a group key, `*`). */
const ToolKeySchema = z.string().refine((k) => isPermissionRuleKey(k), {
  error: (issue) =>
    `unknown tool ${JSON.stringify(issue.input)}: rules name a tool (${Object.keys(declaredTools).join(', ')}), a group (${Object.keys(PERMISSION_GROUPS).join(', ')}), an MCP tool (mcp__<server>__<tool> or mcp__<server>__*) or "${ANY_TOOL}"`,
});

const ArrayRulesSchema = z.array(
  z.strictObject({ tool: ToolKeySchema, pattern: PatternSchema.optional(), action: ActionSchema }),
);

/** JSON objects put integer-like keys first, whatever the order they were written in. */
const INTEGER_KEY = /^(0|[1-9][0-9]*)$/;

/** One `tool: value` entry of the object form: an action for the whole tool, or `{ pattern: action }` in order. */
function objectEntryRules(
  tool: string,
  value: unknown,
  issue: (path: PropertyKey[], message: string) => void,
): PermissionRule[] {
  const key = ToolKeySchema.safeParse(tool);
  if (!key.success) issue([tool], key.error.issues[0]!.message);
  const action = ActionSchema.safeParse(value);
  if (action.success) return [{ tool, action: action.data }];
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    issue([tool], 'expected "allow", "ask", "deny" or an object of pattern → action');
    return [];
  }
  const rules: PermissionRule[] = [];
  for (const [pattern, v] of Object.entries(value)) {
    const a = ActionSchema.safeParse(v);
    if (!a.success) issue([tool, pattern], a.error.issues[0]!.message);
    else if (pattern === '') issue([tool, pattern], 'an empty pattern; use "*" for every subject');
    else if (INTEGER_KEY.test(pattern))
      issue(
        [tool, pattern],
        'a JSON object moves integer-like keys first, so this rule would lose its place; write the rules in the array form',
      );
    else rules.push({ tool, pattern, action: a.data });
  }
  return rules;
}

/** The rules, in either form, in config order. */
const RulesSchema = z.unknown().transform((raw, ctx): PermissionRule[] => {
  if (Array.isArray(raw)) {
    const parsed = ArrayRulesSchema.safeParse(raw);
    if (parsed.success)
      return parsed.data.map((r) => ({
        tool: r.tool,
        action: r.action,
        ...(r.pattern !== undefined ? { pattern: r.pattern } : {}),
      }));
    for (const issue of parsed.error.issues) ctx.addIssue(issue as Parameters<typeof ctx.addIssue>[0]);
    return z.NEVER;
  }
  if (typeof raw !== 'object' || raw === null) {
    ctx.addIssue({
      code: 'custom',
      message:
        'expected an object of tool → action (or → { pattern: action }) or an array of { tool, pattern?, action }',
    });
    return z.NEVER;
  }
  let failed = false;
  const issue = (path: PropertyKey[], message: string) => {
    failed = true;
    ctx.addIssue({ code: 'custom', path, message });
  };
  const rules = Object.entries(raw).flatMap(([tool, value]) => objectEntryRules(tool, value, issue));
  return failed ? z.NEVER : rules;
});

/**
 * The `permission` key of `zuno.json`, parsed into a PermissionPolicy.
 * Absent: mode `standard`, no rules (everything allowed, as before issue 11).
 * Errors (formatted by core/zod-issues.ts, each naming its key): an unknown
 * key, a mode or action that is not one of the values, an unknown tool key,
 * an empty pattern, an integer-like pattern key in the object form.
 */
export const PermissionConfigSchema = z
  .strictObject({ mode: ModeSchema.default('standard'), rules: RulesSchema.default([]) })
  .transform((p): PermissionPolicy => ({ mode: p.mode, rules: p.rules }));

/**
 * The `permission` field of a new session's meta: the policy when it can
 * change anything — a mode other than `standard`, or any rule — and nothing
 * otherwise (`standard` with no rules admits every call, so the session
 * skips the gate and the per-call subject work).
 */
export function sessionPermission(policy: PermissionPolicy): { permission?: PermissionPolicy } {
  return policy.mode !== 'standard' || policy.rules.length > 0 ? { permission: policy } : {};
}
