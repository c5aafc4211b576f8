/**
 * The verdicts a shell call's writes and dynamic parts add (issue 26,
 * docs/permissions.md "Writes" and "Fail closed"). Pure and deterministic:
 * evaluate.ts calls it in the workflow.
 *
 * - A write is decided by the rules of the `write` tool — `edit`, `write` and
 *   `*` keys — on its normalized path, as a `write` call of that path would
 *   be (the last matching rule; no rule allows; `allow_all` turns an ask into
 *   allow). A directory tree (`dir/**`) is decided by every rule that could
 *   match some file under it, back to the last rule that covers all of it;
 *   the most restrictive of those wins.
 * - A dynamic part asks when the policy has an `ask` or `deny` rule for the
 *   tool its kind answers to (shell; `write` for `write_target`/`link_write`) or the mode
 *   is `strict`; in `allow_all` (nothing asks) it is denied when such a
 *   `deny` rule exists. Otherwise it adds nothing: with no such rule nothing
 *   changes.
 */
import { globCoversUnder, globMatchesUnder } from './glob.js';
import { describeRule, lastMatchingRule, normalizePathPattern, ruleCoversTool } from './rules.js';
import type { CallSubject, DynamicKind, PermissionAction, PermissionPolicy, PermissionRule } from './types.js';

/** One subject's verdict; `text` is what it is shown and granted as. */
export interface ShellVerdict {
  action: PermissionAction;
  reason: string;
  text: string;
}

/** The tool whose rules decide writes. */
const WRITE_TOOL = 'write';

const SEVERITY: Readonly<Record<PermissionAction, number>> = { allow: 0, ask: 1, deny: 2 };

/** Why each dynamic kind fails closed, in words (followed by `: <text>`). */
export const DYNAMIC_WHY: Readonly<Record<DynamicKind, string>> = {
  program: 'the program is chosen at run time',
  eval: 'the code it evaluates is built at run time',
  source: 'it runs a file chosen at run time or read from its input',
  interpreter_code: "the interpreter's code is built at run time",
  interpreter_input: 'the interpreter reads its program from its input',
  find: 'find deletes files itself',
  parallel: 'parallel reads the commands it runs from its input',
  env_split: 'env -S builds the command at run time',
  coproc: 'coproc runs a command the rules do not follow',
  function: 'the command defines a function, which can change what a name runs',
  alias: 'the command defines an alias, which can change what a name runs',
  written_program: 'it runs a file the same command writes',
  unparsed: 'the command does not parse, so its programs cannot be named',
  write_target: 'the path it writes is chosen at run time',
  link_write: 'a link the same command makes can send its other writes anywhere',
};

/** The dynamic kinds decided by the rules of writes, not of the shell. */
const WRITE_KINDS: ReadonlySet<DynamicKind> = new Set(['write_target', 'link_write']);

/**
 * The rules that speak for some part of the tree `dir/**`: the last rule
 * matching `dir` itself, and, for what is under it, every rule that could
 * match some file there, back to the last one that matches all of it.
 */
function treeRules(rules: readonly PermissionRule[], dir: string): (PermissionRule | undefined)[] {
  const prefix = dir === '.' ? '' : `${dir}/`;
  const found: (PermissionRule | undefined)[] = dir === '.' ? [] : [lastMatchingRule(rules, WRITE_TOOL, dir, true)];
  for (let i = rules.length - 1; i >= 0; i--) {
    const rule = rules[i]!;
    if (!ruleCoversTool(rule.tool, WRITE_TOOL)) continue;
    const pattern = rule.pattern === undefined ? undefined : normalizePathPattern(rule.pattern);
    if (pattern !== undefined && !globMatchesUnder(pattern, prefix)) continue;
    found.push(rule);
    if (pattern === undefined || globCoversUnder(pattern, prefix)) break;
  }
  return found;
}

function writeVerdict(policy: PermissionPolicy, path: string): ShellVerdict {
  const text = `writes ${path}`;
  const tree = path === '**' || path.endsWith('/**');
  const dir = path === '**' ? '.' : tree ? path.slice(0, -3) : path;
  const candidates = tree ? treeRules(policy.rules, dir) : [lastMatchingRule(policy.rules, WRITE_TOOL, path, true)];
  const rule = candidates.reduce<PermissionRule | undefined>(
    (worst, r) => (r && (!worst || SEVERITY[r.action] > SEVERITY[worst.action]) ? r : worst),
    undefined,
  );
  if (!rule) return { action: 'allow', reason: `no rule for writes: allowed (${text})`, text };
  if (policy.mode === 'allow_all' && rule.action === 'ask')
    return { action: 'allow', reason: `allow_all mode: nothing asks (${describeRule(rule)}: ${text})`, text };
  return { action: rule.action, reason: `${describeRule(rule)}: the command ${text}`, text };
}

function hasRule(policy: PermissionPolicy, tool: string, action: PermissionAction): boolean {
  return policy.rules.some((r) => r.action === action && ruleCoversTool(r.tool, tool));
}

/**
 * The extra verdicts of a shell subject: one per write, one per dynamic part
 * that fails closed (see the module comment). `tool` is the call's tool name.
 *
 * @returns verdicts in order (writes that ask or deny first); none for a subject without
 *   `writes`/`dynamic` (every subject but a shell call's, and those computed
 *   before issue 26). Grants are applied by the caller. Never throws.
 */
export function shellVerdicts(policy: PermissionPolicy, tool: string, subject: CallSubject): ShellVerdict[] {
  if (subject.kind !== 'commands') return [];
  // An allowed write adds no verdict: it cannot change the action, and an allowed call reads as before.
  const out = (subject.writes ?? []).map((p) => writeVerdict(policy, p)).filter((v) => v.action !== 'allow');
  for (const part of subject.dynamic ?? []) {
    const answersTo = WRITE_KINDS.has(part.kind) ? WRITE_TOOL : tool;
    const why = `${DYNAMIC_WHY[part.kind]}: ${part.text}`;
    if (policy.mode === 'allow_all') {
      if (hasRule(policy, answersTo, 'deny'))
        out.push({
          action: 'deny',
          reason: `${why} (allow_all mode cannot ask, and a deny rule may apply)`,
          text: part.text,
        });
    } else if (policy.mode === 'strict' || hasRule(policy, answersTo, 'deny') || hasRule(policy, answersTo, 'ask')) {
      out.push({ action: 'ask', reason: why, text: part.text });
    }
  }
  return out;
}
