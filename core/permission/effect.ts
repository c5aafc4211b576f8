/**
 * The TD1 effect of one call, as the permission gate reads it (TD1, TD2).
 */
import { toolDeclarations } from '../tools/registry.js';
import type { ToolEffect } from '../tools/types.js';

/**
 * The effect of a call of `tool` with validated `args`: the declaration's
 * per-call `effectOf` (bg: `cancel` SideEffecting, reads ReadOnly), else its
 * declared `effect`. A tool Zuno does not declare (an extension or MCP tool)
 * is SideEffecting (TD2 fail closed), and so is a call whose `effectOf`
 * cannot read its arguments. Pure; never throws.
 */
export function callEffect(tool: string, args: unknown): ToolEffect {
  const decl = Object.prototype.hasOwnProperty.call(toolDeclarations, tool) ? toolDeclarations[tool] : undefined;
  if (!decl) return 'SideEffecting';
  if (!decl.effectOf) return decl.effect;
  try {
    return decl.effectOf(args);
  } catch {
    return 'SideEffecting'; // arguments that are not the validated shape: the strictest class (TD1)
  }
}
