/**
 * The value templates of an MCP server's `env` and `headers` (issue 30 item
 * 1, MC10 SEED-GAP; docs/mcp.md "Templates and secrets"). A value is literal
 * text with `${NAME}` references, NAME an environment variable name
 * (`[A-Za-z_][A-Za-z0-9_]*`); a `$` not followed by `{` is literal. Any
 * other `${…}` is malformed (refused by the config). The config keeps the template (it is what the session's meta,
 * and so workflow history, holds); the worker resolves it from its own
 * environment when the connection opens. Deterministic.
 */

/** A `${NAME}` reference. */
const TOKEN = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Header and environment variable names whose values are secrets: such a
 * value must come from a `${NAME}` reference, never be written literally.
 */
export const SECRET_NAME = /authorization|token|key|secret|password|cookie/i;

/**
 * Why `value` is not a well-formed template, or null when it is: a `${`
 * that does not open a `${NAME}` reference (unclosed, empty, or a name that
 * is not an environment variable name).
 */
export function templateProblem(value: string): string | null {
  const rest = value.replace(TOKEN, '');
  if (!rest.includes('${')) return null;
  return `${JSON.stringify(value)}: a "\${" must open a reference to an environment variable, like "\${NAME}"`;
}

/** The variable names `value` references, in order of first appearance (none for a malformed template's bad part). */
export function templateRefs(value: string): string[] {
  const names: string[] = [];
  for (const m of value.matchAll(TOKEN)) if (!names.includes(m[1]!)) names.push(m[1]!);
  return names;
}
