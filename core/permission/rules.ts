/**
 * Which rule of a policy speaks for one subject of a call (PM10 SEED-GAP,
 * docs/permissions.md): rules are read in config order and the LAST rule that
 * matches wins. A rule matches when its tool key covers the call's tool and,
 * if it has a pattern, the pattern matches the subject text.
 */
import { declaredTools } from '../tools/registry.js';
import { globMatch } from './glob.js';
import { MCP_PREFIX } from '../mcp/naming.js';
import type { PermissionRule } from './types.js';

/**
 * Rule keys that name several tools. `edit`: the tools that change workspace
 * files, `write` and `apply_patch`. `report_write` is not in it: the seeds
 * keep report publishing separate from edit (tools.zh.md, report_write;
 * PM5 "report_write has its own permission rules").
 */
export const PERMISSION_GROUPS: Readonly<Record<string, readonly string[]>> = {
  edit: ['write', 'apply_patch'],
  /** QU9, PM5: the `question` key also governs `question_async`. */
  question: ['question', 'question_async'],
};

/** The key of a rule for every tool. */
export const ANY_TOOL = '*';

/**
 * The tool keys a rule may name: every declared tool, every group key and
 * `*`. Config validation refuses any other key (client/permission-config.ts).
 */
export function permissionRuleKeys(): string[] {
  return [...new Set([...Object.keys(declaredTools), ...Object.keys(PERMISSION_GROUPS), ANY_TOOL])];
}

/**
 * A rule key for MCP tools (issue 30 item 4): `mcp__<server>__<tool>` (one
 * tool, by its wire name) or `mcp__<server>__*` (every tool of a server).
 */
export const MCP_RULE_KEY = /^mcp__[A-Za-z0-9_-]+__(?:[A-Za-z0-9_-]+|\*)$/;

/** true when `key` is a rule key a config may use: a declared tool, a group, `*` or an MCP key. */
export function isPermissionRuleKey(key: string): boolean {
  return permissionRuleKeys().includes(key) || MCP_RULE_KEY.test(key);
}

/** true when a rule keyed `key` speaks for calls of `tool`. */
export function ruleCoversTool(key: string, tool: string): boolean {
  if (key === ANY_TOOL || key === tool) return true;
  if (key.startsWith(MCP_PREFIX) && key.endsWith('__*')) return tool.startsWith(key.slice(0, -1));
  return PERMISSION_GROUPS[key]?.includes(tool) ?? false;
}

/**
 * A path pattern in the spelling subjects use: a leading `./` and `/./`
 * segments dropped, repeated `/` collapsed (`./src//*` → `src/*`). `..` is
 * left alone (a pattern is not a path on disk).
 */
export function normalizePathPattern(pattern: string): string {
  let p = pattern.replace(/\/{2,}/g, '/');
  while (p.includes('/./')) p = p.replace('/./', '/');
  while (p.startsWith('./')) p = p.slice(2);
  if (p.endsWith('/.')) p = p.slice(0, -2);
  return p === '' ? '.' : p;
}

/**
 * The last rule of `rules` that matches `text`, a subject of a call of
 * `tool`, or undefined. `isPath`: the subject is a path, so rule patterns are
 * read through {@link normalizePathPattern}. Pure.
 */
export function lastMatchingRule(
  rules: readonly PermissionRule[],
  tool: string,
  text: string,
  isPath: boolean,
): PermissionRule | undefined {
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (!ruleCoversTool(rule.tool, tool)) continue;
    if (rule.pattern === undefined) return rule;
    const pattern = isPath ? normalizePathPattern(rule.pattern) : rule.pattern;
    if (globMatch(pattern, text)) return rule;
  }
  return undefined;
}

/** A rule in plain words: `rule shell "rm -rf*" → deny`, `rule edit → ask`. */
export function describeRule(rule: PermissionRule): string {
  const pattern = rule.pattern !== undefined ? ` ${JSON.stringify(rule.pattern)}` : '';
  return `rule ${rule.tool}${pattern} → ${rule.action}`;
}
