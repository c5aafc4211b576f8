import type { z } from 'zod';

/**
 * Formats zod issues as one line per issue, each naming the key path
 * (e.g. `server.mode: Invalid option: expected one of "dev"|"external"`,
 * `dev.prot: unknown key`). Pure; used for every config/script error.
 */
export function formatZodIssues(error: z.ZodError): string {
  return error.issues
    .map((issue) => {
      if (issue.code === 'unrecognized_keys') {
        const base = issue.path.map(String).join('.');
        return issue.keys.map((k) => `${base ? `${base}.` : ''}${k}: unknown key`).join('; ');
      }
      const path = issue.path.map(String).join('.') || '(root)';
      return `${path}: ${issue.message}`;
    })
    .join('; ');
}
