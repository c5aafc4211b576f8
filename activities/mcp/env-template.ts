/**
 * `${NAME}` templates of an MCP server's `env` and `headers` (issue 30 item 1,
 * decision in core/mcp/types.ts): resolved from the worker's environment when
 * a connection opens, so a secret never reaches workflow history. A template
 * naming an unset variable fails that server with an error naming the
 * variable and the key that needed it — never a value.
 */

/** A `${NAME}` reference to an unset (or empty) variable. */
export class McpTemplateError extends Error {
  constructor(
    readonly variable: string,
    readonly key: string,
  ) {
    super(`environment variable ${variable} is not set (needed by ${key})`);
    this.name = 'McpTemplateError';
  }
}

const REFERENCE = /\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * Resolves every value of `templates` against `env`.
 * @param what how the error names a key (`env`, `header`), e.g. `header Authorization`.
 * @throws McpTemplateError for the first reference to an unset variable.
 */
export function resolveTemplates(
  templates: Record<string, string>,
  env: Record<string, string | undefined>,
  what: string,
): Record<string, string> {
  const out: Record<string, string> = {};
  for (const [key, template] of Object.entries(templates)) {
    out[key] = template.replace(REFERENCE, (_m, name: string) => {
      const value = env[name];
      if (value === undefined || value === '') throw new McpTemplateError(name, `${what} ${key}`);
      return value;
    });
  }
  return out;
}
