/**
 * What a shell command's exit status can prove (SH1, SH2): reads the command
 * text as a bash syntax tree and the configured exit policy and interpreter,
 * and downgrades the receipt to `derived` — with a limitation note and a
 * remedy — for every construct that lets a failure go unseen. Nothing here
 * changes what runs; only the claim about it.
 */
import type { ShellExitPolicy } from '../../../core/tools/shell.js';
import { parseCommand, type ParseResult, type ShNode } from './syntax.js';
import type { CommandAnalysis, Limitation, LimitationKind } from './types.js';
import { commandWords, effectiveProgram, literalWord, programBase } from './words.js';

/** SH1: interpreters whose `pipefail` is known to work; any other (`sh`, `dash`, …) only gives `derived`. */
export const KNOWN_PIPEFAIL_SHELLS: ReadonlySet<string> = new Set(['bash', 'ksh', 'zsh']);

/** Programs that run `-c` text in a new shell under its own options. */
const SHELLS = new Set(['bash', 'sh', 'dash', 'zsh', 'ksh', 'mksh', 'ash', 'fish']);

/** Non-final statements whose status is irrelevant to what a command checks. */
const HARMLESS = new Set([
  'set',
  'shopt',
  'export',
  'declare',
  'local',
  'readonly',
  'typeset',
  'true',
  ':',
  'echo',
  'printf',
  'unset',
  'trap',
  'umask',
  'alias',
]);

interface Walk {
  found: Map<LimitationKind, Limitation>;
  /** Whether errexit is on at this point of the text (exitPolicy `all`, or `set -e` seen). */
  errexit: boolean;
}

function snippet(node: ShNode): string {
  const first = (node.text.split('\n', 1)[0] ?? '').trim();
  return first.length > 60 ? `${first.slice(0, 59)}…` : first;
}

function add(w: Walk, kind: LimitationKind, note: string, remedy: string): void {
  if (!w.found.has(kind)) w.found.set(kind, { kind, note, remedy });
}

function named(children: ShNode[]): ShNode[] {
  return children.filter((c) => c.named && c.type !== 'comment');
}

function containsSubstitution(node: ShNode): boolean {
  if (node.type === 'command_substitution' || node.type === 'process_substitution') return true;
  return node.children.some(containsSubstitution);
}

/** Looks through redirections: `a && b > log` is still the list `a && b`. */
function core(node: ShNode): ShNode {
  if (node.type === 'redirected_statement') {
    const body = node.children.find((c) => c.field === 'body');
    return body ? core(body) : node;
  }
  return node;
}

function listOperator(list: ShNode): string | undefined {
  return list.children.find((c) => !c.named && (c.type === '&&' || c.type === '||'))?.type;
}

function hasAndOperator(node: ShNode): boolean {
  const n = core(node);
  if (n.type !== 'list') return false;
  return listOperator(n) === '&&' || named(n.children).some(hasAndOperator);
}

/** A right-hand side that keeps a failure a failure: `false`, `exit`, `exit 3`, `return 1`, `{ …; exit 1; }`. */
function preservesFailure(node: ShNode): boolean {
  const n = core(node);
  if (n.type === 'compound_statement' || n.type === 'subshell') {
    const last = named(n.children).at(-1);
    return last !== undefined && preservesFailure(last);
  }
  if (n.type !== 'command') return false;
  const prog = effectiveProgram(n);
  if (!prog) return false;
  if (prog.program === 'false') return true;
  if (prog.program === 'exit' || prog.program === 'return') {
    const code = prog.args[0];
    if (code === undefined) return true; // `exit` alone keeps the failing status
    return code !== null && /^\d+$/.test(code) && Number(code) % 256 !== 0;
  }
  return false;
}

function isHarmless(node: ShNode): boolean {
  if (containsSubstitution(node)) return false;
  switch (node.type) {
    case 'declaration_command':
    case 'variable_assignment':
    case 'variable_assignments':
    case 'unset_command':
    case 'function_definition':
      return true;
    case 'command': {
      const prog = effectiveProgram(node);
      return prog !== null && HARMLESS.has(prog.program);
    }
    default:
      return false;
  }
}

/** `set` flags: updates errexit and records `set +e` / `set +o pipefail`. */
function readSet(node: ShNode, w: Walk): void {
  const { args } = commandWords(node);
  const words = args.map(literalWord);
  for (let i = 0; i < words.length; i++) {
    const a = words[i];
    if (a === null || a === undefined || !/^[-+][A-Za-z]+$/.test(a)) continue;
    const on = a.startsWith('-');
    const flags = a.slice(1);
    const opts: string[] = [];
    if (flags.includes('e')) opts.push('errexit');
    if (flags.includes('o')) {
      const next = words[i + 1];
      if (next) opts.push(next);
      i++;
    }
    for (const o of opts) {
      if (o === 'errexit') {
        w.errexit = on;
        if (!on)
          add(
            w,
            'errexit_off',
            `\`${snippet(node)}\` turns errexit off, so a failing statement after it no longer stops the command.`,
            'Remove "set +e"; run a step that is allowed to fail as its own call.',
          );
      } else if (o === 'pipefail' && !on) {
        add(
          w,
          'pipefail_off',
          `\`${snippet(node)}\` turns pipefail off, so a failing pipeline stage after it can go unseen.`,
          'Remove "set +o pipefail"; choose exitPolicy "last" explicitly if a stage may fail.',
        );
      }
    }
  }
}

function readCommand(node: ShNode, w: Walk): void {
  const prog = effectiveProgram(node);
  if (prog) {
    if (prog.program === 'set') readSet(node, w);
    if (SHELLS.has(prog.program) && prog.args.some((a) => a !== null && /^-[A-Za-z]*c[A-Za-z]*$/.test(a))) {
      add(
        w,
        'nested_shell',
        `\`${snippet(node)}\` runs its text in a new ${prog.program} under that shell's own options (no pipefail, no errexit).`,
        'Run the inner command directly in this call instead of through "-c".',
      );
    }
  }
  scanSubstitutions(node, w);
}

/** Walks code inside `$(…)`, `<(…)` and here-document expansions: it runs, so its constructs count. */
function scanSubstitutions(node: ShNode, w: Walk): void {
  for (const c of node.children) {
    if (c.type === 'command_substitution' || c.type === 'process_substitution') {
      const inner: Walk = { ...w };
      walkStatements(c.children, inner, false, true);
    } else {
      scanSubstitutions(c, w);
    }
  }
}

/**
 * Walks a statement list (program, subshell, block, loop body, branch).
 * `tail`: the list's last statement decides the enclosing command's status.
 * `quiet`: don't flag non-final statements (conditions, substitutions: their
 * status is already accounted for).
 */
function walkStatements(children: ShNode[], w: Walk, tail: boolean, quiet = false): void {
  const stmts: { node: ShNode; background: boolean }[] = [];
  for (let i = 0; i < children.length; i++) {
    const c = children[i]!;
    if (!c.named || c.type === 'comment') continue;
    const next = children[i + 1];
    stmts.push({ node: c, background: next !== undefined && !next.named && next.type === '&' });
  }
  stmts.forEach(({ node, background }, i) => {
    const isTail = tail && i === stmts.length - 1 && !background;
    if (background) {
      add(
        w,
        'background',
        `\`${snippet(node)}\` runs in the background; its exit status is never seen.`,
        'Run it in the foreground, or as a background command whose completion you read with bg.',
      );
    } else if (!isTail && !quiet) {
      if (w.errexit) {
        if (hasAndOperator(node))
          add(
            w,
            'and_chain',
            `Under errexit (exitPolicy "all"), the && chain \`${snippet(node)}\` is not the last statement, so a failure before its last command does not stop the command and goes unseen.`,
            'Make that chain the last statement, or split it into statements joined by newlines or ";".',
          );
      } else if (!isHarmless(node)) {
        add(
          w,
          'sequence',
          `\`${snippet(node)}\` is not the last statement, and without errexit only the last statement's status is the command's.`,
          'Join the statements with &&, or use exitPolicy "all".',
        );
      }
    }
    walkStatement(node, w, isTail);
  });
}

function walkIf(node: ShNode, w: Walk, tail: boolean): void {
  add(
    w,
    'condition',
    `\`${snippet(node)}\`: a check written as an if condition exits 0 when it fails.`,
    "Run the check as its own statement (or its own call) so its status is the command's.",
  );
  for (const c of node.children) if (c.field === 'condition') walkStatement(c, w, true);
  const body = node.children.filter(
    (c) => c.field !== 'condition' && c.type !== 'elif_clause' && c.type !== 'else_clause',
  );
  walkStatements(body, w, tail);
  for (const clause of node.children) {
    if (clause.type === 'elif_clause') {
      const then = clause.children.findIndex((c) => !c.named && c.type === 'then');
      const cond = then >= 0 ? clause.children.slice(0, then) : [];
      for (const c of named(cond)) walkStatement(c, w, true);
      walkStatements(then >= 0 ? clause.children.slice(then + 1) : clause.children, w, tail);
    } else if (clause.type === 'else_clause') {
      walkStatements(clause.children, w, tail);
    }
  }
}

function walkLoop(node: ShNode, w: Walk, tail: boolean): void {
  const keyword = node.children.find((c) => !c.named)?.type ?? 'for';
  add(
    w,
    'loop',
    `\`${snippet(node)}\`: a ${keyword} loop's status is its last iteration's only.`,
    'Run the iterations as separate statements joined by && (or separate calls).',
  );
  if (node.type === 'while_statement') {
    add(
      w,
      'condition',
      `\`${snippet(node)}\`: a check written as a ${keyword} condition exits 0 when it ends the loop.`,
      "Run the check as its own statement (or its own call) so its status is the command's.",
    );
  }
  for (const c of node.children) {
    if (c.field === 'body') walkStatements(c.children, w, tail);
    else if (c.field === 'condition') walkStatement(c, w, true);
    else if (c.named) scanSubstitutions(c, w);
  }
}

function walkStatement(node: ShNode, w: Walk, tail: boolean): void {
  switch (node.type) {
    case 'redirected_statement':
      for (const c of node.children) {
        if (c.field === 'body') walkStatement(c, w, tail);
        else if (c.type === 'heredoc_redirect') walkHeredocRedirect(c, w, tail);
        else scanSubstitutions(c, w);
      }
      return;
    case 'list': {
      const op = listOperator(node);
      const [left, right] = named(node.children);
      if (op === '||' && right && !preservesFailure(right)) addOr(node, right, w);
      if (left) walkStatement(left, w, tail);
      if (right) walkStatement(right, w, tail);
      return;
    }
    case 'pipeline':
    case 'negated_command':
      for (const c of named(node.children)) walkStatement(c, w, tail);
      return;
    case 'subshell': {
      const inner: Walk = { ...w }; // option changes inside a subshell do not leak
      walkStatements(node.children, inner, tail);
      return;
    }
    case 'compound_statement':
      walkStatements(node.children, w, tail);
      return;
    case 'if_statement':
      walkIf(node, w, tail);
      return;
    case 'while_statement':
    case 'for_statement':
    case 'c_style_for_statement':
      walkLoop(node, w, tail);
      return;
    case 'case_statement':
      for (const c of node.children) {
        if (c.type === 'case_item')
          walkStatements(
            c.children.filter((x) => x.field !== 'value'),
            w,
            tail,
          );
        else scanSubstitutions(c, w);
      }
      return;
    case 'function_definition': {
      const body = node.children.find((c) => c.field === 'body');
      if (body) {
        const inner: Walk = { ...w };
        walkStatement(body, inner, true);
      }
      return;
    }
    case 'command':
      readCommand(node, w);
      return;
    default:
      scanSubstitutions(node, w);
  }
}

/** tree-sitter-bash hangs `cat <<EOF || true` off the here-document redirect. */
function walkHeredocRedirect(node: ShNode, w: Walk, tail: boolean): void {
  const op = node.children.find((c) => c.field === 'operator')?.type;
  const right = node.children.find((c) => c.field === 'right');
  if (op === '||' && right && !preservesFailure(right)) addOr(node, right, w);
  scanSubstitutions(node, w);
  if (right) walkStatement(right, w, tail);
}

function addOr(node: ShNode, right: ShNode, w: Walk): void {
  const r = core(right);
  const prog = r.type === 'command' ? effectiveProgram(r) : null;
  const masking = prog !== null && (prog.program === 'true' || prog.program === ':');
  add(
    w,
    'or_fallback',
    masking
      ? `\`${snippet(node)}\` exits 0 whatever the command before "||" did.`
      : `\`${snippet(node)}\`: when the command before "||" fails, the status is the fallback's, not the failure's.`,
    masking
      ? 'Drop the "|| true" fallback from the check whose result matters (use exitPolicy "last" or a separate call for steps allowed to fail).'
      : 'Run the check whose result matters on its own, or end the fallback with "exit 1".',
  );
}

/**
 * Reads what a parsed command's exit status can prove (SH1, SH2); the
 * synchronous core of {@link analyzeCommand}, for callers that already
 * parsed the command (see syntax.ts `parseCommand`).
 */
export function analyzeParsed(
  parsed: ParseResult,
  exitPolicy: ShellExitPolicy = 'pipefail',
  interpreter = 'bash',
): CommandAnalysis {
  const w: Walk = { found: new Map(), errexit: exitPolicy === 'all' };
  const shell = programBase(interpreter);
  if (!KNOWN_PIPEFAIL_SHELLS.has(shell)) {
    add(
      w,
      'interpreter',
      `Ran under ${shell}, which is not one of the shells whose pipefail is known to work (bash, ksh, zsh); pipefail was not requested and the status is derived.`,
      'Run the command under bash.',
    );
  }
  if (exitPolicy === 'last') {
    add(
      w,
      'exit_policy_last',
      'exitPolicy "last": a pipeline\'s status is its last stage\'s only, so an earlier stage can fail unseen.',
      'Use the default exitPolicy "pipefail" unless a stage is allowed to fail.',
    );
  }
  if (!parsed.ok) {
    add(
      w,
      'unparsed',
      `Could not parse the command (${parsed.error}), so what its exit status covers is unknown.`,
      'Fix the syntax, or split the command into simpler calls.',
    );
  } else {
    walkStatements(parsed.root.children, w, true);
  }
  const limitations = [...w.found.values()];
  return { authority: limitations.length === 0 ? 'authoritative' : 'derived', limitations };
}

/**
 * Reads what a command's exit status can prove (SH1, SH2).
 *
 * @param command bash source text, as the model sent it.
 * @param exitPolicy the call's exit policy (default `pipefail`).
 * @param interpreter the shell it runs under (a name or path; default
 *   `bash`). Outside {@link KNOWN_PIPEFAIL_SHELLS} the result is always
 *   `derived`, with a limitation naming the interpreter.
 * @returns `authoritative` with no limitations, or `derived` with one
 *   limitation per construct kind found (`unparsed` when the text does not
 *   parse). Async only because the parser loads lazily; never throws.
 */
export async function analyzeCommand(
  command: string,
  exitPolicy: ShellExitPolicy = 'pipefail',
  interpreter = 'bash',
): Promise<CommandAnalysis> {
  return analyzeParsed(await parseCommand(command), exitPolicy, interpreter);
}
