/**
 * RT8: the `runtime.execution` segment generated from the tools a request
 * actually offers. Each rule text (`prompts/execution/<tools>.md`) is keyed by
 * the tool names in its file name (`grep+shell.md` needs both); `always.md`
 * is keyed by none. A rule is included only when every tool of its key is
 * offered, so guidance never names a capability the session lacks. Pure.
 */

/** One execution rule: the tools it needs (empty: always), its file (provenance) and text. */
export interface ExecutionRule {
  tools: readonly string[];
  file: string;
  text: string;
}

/** The tools a rule file's name keys it by: `always.md` → [], `grep+shell.md` → [grep, shell]. */
export function ruleKey(fileName: string): string[] {
  const base = fileName.replace(/\.md$/, '');
  return base === 'always' ? [] : base.split('+');
}

/**
 * The rules in force for `offered` tool names, in order: the always-rules
 * first, then by the position of the rule's earliest tool in `offered`
 * (registry order), ties by file name. Empty texts are skipped.
 */
export function rulesInForce(rules: readonly ExecutionRule[], offered: readonly string[]): ExecutionRule[] {
  const at = new Map(offered.map((t, i) => [t, i]));
  const rank = (r: ExecutionRule) => (r.tools.length === 0 ? -1 : Math.min(...r.tools.map((t) => at.get(t)!)));
  return rules
    .filter((r) => r.text.trim() !== '' && r.tools.every((t) => at.has(t)))
    .sort((a, b) => rank(a) - rank(b) || (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
}

/** Tools that change the workspace or run commands: a session offered none of them is read-only (`runtime.read_only`). */
export const CHANGING_TOOLS: readonly string[] = ['write', 'apply_patch', 'shell', 'bg'];

/** True when none of `offered` can change the workspace or run a command. */
export function offersReadOnly(offered: readonly string[]): boolean {
  return !offered.some((t) => CHANGING_TOOLS.includes(t));
}
