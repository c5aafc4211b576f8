/**
 * The TD1 effect of one call, as the permission gate reads it (TD1, TD2).
 */
import { toolDeclarations } from '../tools/registry.js';
import type { ToolEffect } from '../tools/types.js';

/**
 * The effect of a call of `tool` with validated `args`: the declaration's
 * per-call `effectOf` (bg: `cancel` SideEffecting, reads ReadOnly), else its
 * declared `effect`. A tool Zuno does not declare (an extension or MCP tool)
 * is SideEffecting (TD2 fail closed). Pure; never throws.
 */
export function callEffect(tool: string, args: unknown): ToolEffect {
  const decl = Object.prototype.hasOwnProperty.call(toolDeclarations, tool) ? toolDeclarations[tool] : undefined;
  if (!decl) return 'SideEffecting';
  return decl.effectOf ? decl.effectOf(args) : decl.effect;
}
