/**
 * The shell subject of a call, as permission rules see it
 * (docs/permissions.md): every simple command that would run, each as its
 * words (word-text.ts) joined by single spaces, found anywhere in the syntax
 * tree — pipelines, `&&`/`||` lists, `;` sequences, subshells, blocks, loops,
 * conditions, function bodies, `$(…)`/`<(…)` and here-document expansions —
 * and inside the text given to `bash -c`/`sh -c` (and the other POSIX-ish
 * shells), `eval`, `trap`, `find -exec`, `xargs` and `parallel` when that text
 * is literal; the files it writes (redirections, writers.ts); and what cannot
 * be named statically (issue 26: the `dynamic` parts, which fail closed).
 */
import { posix } from 'node:path';
import type { DynamicKind, DynamicPart } from '../../core/permission/types.js';
import { parseCommand, type ShNode } from '../tools/shell/syntax.js';
import { commandWords, literalWord, programBase } from '../tools/shell/words.js';
import { interpreterSource, SHELLS } from './interpreters.js';
import { DEVICES, FD_TARGET, stdinOf, type Stdin } from './redirects.js';
import { baseName, joinWords, type RawWrite, type Word } from './shell-parts.js';
import { wordText } from './word-text.js';
import { isWriter, makesLink, programWrites } from './writers.js';
import { programIndex } from './wrappers.js';

/** GNU parallel options that take the next word as their value. */
const PARALLEL_VALUES: ReadonlySet<string> = new Set([
  ...['-j', '-P', '-S', '-a', '-d', '-I', '-N', '-n', '-L', '-E', '-C', '-l', '-s'],
  ...['--jobs', '--sshlogin', '--arg-file', '--delimiter', '--colsep', '--halt', '--delay', '--timeout'],
  ...['--joblog', '--results', '--tmpdir', '--workdir', '--basefile', '--retries', '--memfree', '--load'],
  ...['--tagstring', '--tag-string', '--max-args', '--max-lines', '--max-replace-args'],
]);

/** `find` actions that run a command, ended by `;` or `+`. */
const FIND_EXEC: ReadonlySet<string> = new Set(['-exec', '-execdir', '-ok', '-okdir']);

/** How deep `bash -c` / `eval` texts are recursed into. */
const MAX_DEPTH = 8;

/** The most write targets one subject carries (more fail closed as one `write_target` part). */
export const MAX_WRITES = 256;

/** The most dynamic parts of one kind one subject carries (one is enough to fail closed). */
export const MAX_DYNAMIC_PER_KIND = 16;

/** The most characters of a definition quoted in a dynamic part. */
const QUOTE_MAX = 120;

/** The shell subject of one command text. */
export interface ShellSubject {
  /** Each simple command as spelled (leading assignments included), in source order, each once. */
  commands: string[];
  /** For a command behind assignments or wrappers, the command they run; not repeated from `commands`. */
  unwrapped: string[];
  /** The files the command writes, as spelled (relative to its working directory), in order. */
  writes: RawWrite[];
  /** What cannot be named statically, each occurrence once, in order. */
  dynamic: DynamicPart[];
}

interface Collected {
  commands: Set<string>;
  unwrapped: Set<string>;
  writes: RawWrite[];
  dynamic: Map<string, DynamicPart>;
  /** Files the command runs — program words, interpreter scripts, sourced files — with the command's text. */
  ran: { file: string; text: string }[];
  /** Commands that may make a link, with the indexes of `writes` they made themselves (`from` ≤ i < `to`). */
  links: { text: string; from: number; to: number }[];
}

/** An empty {@link Collected}. */
function collected(): Collected {
  return { commands: new Set(), unwrapped: new Set(), writes: [], dynamic: new Map(), ran: [], links: [] };
}

/**
 * Where a command is: nesting depth, whether the command changes directory
 * (so relative writes cannot be placed), whether its arguments come from
 * input (`xargs`, `find -exec`, `parallel`), and its redirected input.
 */
interface Context {
  depth: number;
  cwdMoved: boolean;
  fromInput: boolean;
  stdin?: Stdin;
}

function addDynamic(out: Collected, kind: DynamicKind, text: string): void {
  const key = `${kind}\0${text}`;
  if (!out.dynamic.has(key)) out.dynamic.set(key, { kind, text });
}

function quote(text: string): string {
  const first = text.split('\n', 1)[0] ?? '';
  return first.length > QUOTE_MAX || first !== text ? `${first.slice(0, QUOTE_MAX)}…` : first;
}

function assignmentText(node: ShNode): string {
  const name = node.children.find((c) => c.field === 'name')?.text ?? '';
  const value = node.children.find((c) => c.field === 'value');
  return `${name}=${value ? wordText(value) : ''}`;
}

function literalText(args: Word[]): string | null {
  if (args.length === 0 || args.some((a) => a.literal === null)) return null;
  return args.map((a) => a.literal).join(' ');
}

/** Parses `text` as more shell code (`bash -c`, `eval`), or marks it dynamic when nested too deep. */
async function nested(text: string, kind: DynamicKind, out: Collected, ctx: Context): Promise<void> {
  if (ctx.depth >= MAX_DEPTH) addDynamic(out, kind, quote(text));
  else await collect(text, out, { depth: ctx.depth + 1, cwdMoved: ctx.cwdMoved, fromInput: false });
}

/** The command `find -exec …` / `-ok …` runs: its words up to `;` or `+`. */
async function findActions(args: Word[], text: string, out: Collected, ctx: Context): Promise<void> {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!.literal;
    if (a === '-delete') addDynamic(out, 'find', text);
    if (a === null || !FIND_EXEC.has(a)) continue;
    let j = i + 1;
    while (j < args.length && args[j]!.literal !== ';' && args[j]!.literal !== '+') j++;
    const command = args.slice(i + 1, j);
    const moved = ctx.cwdMoved || a === '-execdir' || a === '-okdir';
    const inner: Context = { depth: ctx.depth, cwdMoved: moved, fromInput: true };
    if (command.length > 0) await analyzeWords(command, [], out, inner, false);
    i = j;
  }
}

/** What GNU `parallel` runs: its command words up to a `:::` separator; none → it reads commands from its input. */
async function parallelCommand(args: Word[], text: string, out: Collected, ctx: Context): Promise<void> {
  let i = 0;
  while (i < args.length) {
    const a = args[i]!.literal;
    if (a === null || !a.startsWith('-')) break;
    i += PARALLEL_VALUES.has(a) ? 2 : 1;
  }
  let j = i;
  while (j < args.length && !/^::::?\+?$/.test(args[j]!.literal ?? '')) j++;
  const command = args.slice(i, j);
  if (command.length === 0) return addDynamic(out, 'parallel', text);
  const only = command.length === 1 ? command[0]!.literal : null;
  if (only !== null && /\s/.test(only)) return nested(only, 'interpreter_code', out, ctx);
  await analyzeWords(command, [], out, { depth: ctx.depth, cwdMoved: ctx.cwdMoved, fromInput: true }, false);
  // Like `xargs rm`: the program gets arguments (`:::` values, input lines), so `parallel rm ::: x` meets `rm *`.
  const first = command[0]!.literal;
  if (first !== null)
    out.unwrapped.add([programBase(first), ...command.slice(1).map((w) => w.text), '<input>'].join(' '));
}

/** util-linux `script` options that take the next word as their value. */
const SCRIPT_VALUES: ReadonlySet<string> = new Set([
  ...['-E', '-I', '-O', '-B', '-T', '-m', '-o'],
  ...['--echo', '--log-in', '--log-out', '--log-io', '--log-timing', '--logging-format', '--output-limit'],
]);

/**
 * util-linux `script`, a command runner: its literal `-c`/`--command` text
 * is shell code, parsed like `sh -c`; text built at run time fails closed as
 * interpreter code, and without `-c` it runs a shell that reads its program
 * from its input (fails closed).
 */
async function scriptCommand(args: Word[], text: string, out: Collected, ctx: Context): Promise<void> {
  for (let i = 0; i < args.length; i++) {
    const a = args[i]!.literal;
    if (a === null) return addDynamic(out, 'interpreter_code', text);
    let code: Word | undefined;
    if (a === '--command' || /^-[A-Za-z]*c$/.test(a)) code = args[i + 1];
    else if (a.startsWith('--command=')) code = { text: a, literal: a.slice('--command='.length) };
    else if (/^-[A-Za-z]*c./.test(a)) code = { text: a, literal: a.slice(a.indexOf('c') + 1) };
    else if (SCRIPT_VALUES.has(a)) i++;
    if (code === undefined) continue;
    if (code.literal === null) return addDynamic(out, 'interpreter_code', text);
    return nested(code.literal, 'interpreter_code', out, ctx);
  }
  addDynamic(out, 'interpreter_input', text);
}

/**
 * An interpreter that reads its program from its input: literal text given by
 * a here-document (quoted delimiter, or no expansion in it) or a here-string
 * is read like `-c` code (a shell's is parsed, another interpreter's is
 * matched as written); a file (`sh < script.sh`) is a script file; anything
 * else — a pipe, text built at run time, arguments from input — fails closed.
 */
async function programInput(program: string, text: string, out: Collected, ctx: Context): Promise<void> {
  if (ctx.fromInput) return addDynamic(out, 'program', text);
  const input = ctx.stdin;
  if (input?.kind === 'text') {
    if (SHELLS.has(program)) await nested(input.text, 'interpreter_input', out, ctx);
  } else if (input?.kind !== 'file') {
    addDynamic(out, 'interpreter_input', text);
  }
}

/** Everything a program's own rules add: nested code, dynamic parts, writes. */
async function analyzeProgram(program: string, args: Word[], text: string, out: Collected, ctx: Context) {
  switch (program) {
    case 'eval': {
      const code = literalText(args);
      if (code === null) addDynamic(out, 'eval', text);
      else await nested(code, 'eval', out, ctx);
      break;
    }
    case 'trap': {
      const first = args[0];
      if (first && first.literal === null) addDynamic(out, 'eval', text);
      else if (first && args.length > 1 && !first.literal!.startsWith('-'))
        await nested(first.literal!, 'eval', out, ctx);
      break;
    }
    case 'source':
    case '.': {
      const file = args[0];
      if (
        file &&
        (file.literal === null || /^(-|\/dev\/stdin|\/dev\/fd\/\d+|\/proc\/self\/fd\/\d+)$/.test(file.literal))
      )
        addDynamic(out, 'source', text);
      break;
    }
    case 'coproc':
      addDynamic(out, 'coproc', text);
      break;
    case 'alias':
      if (args.some((a) => a.literal === null || a.literal.includes('='))) addDynamic(out, 'alias', text);
      break;
    case 'find':
      await findActions(args, text, out, ctx);
      break;
    case 'parallel':
      await parallelCommand(args, text, out, ctx);
      break;
    case 'hash':
      // `hash -p FILE NAME` makes NAME run FILE; `enable -f` loads builtins from a shared object.
      if (args.some((a) => a.literal === null || /^-[A-Za-z]*p/.test(a.literal))) addDynamic(out, 'program', text);
      break;
    case 'enable':
      if (args.some((a) => a.literal === null || /^-[A-Za-z]*f/.test(a.literal))) addDynamic(out, 'program', text);
      break;
    case 'script':
      await scriptCommand(args, text, out, ctx);
      break;
  }
  const source = interpreterSource(program, args);
  if (source?.kind === 'file' && source.script !== undefined) out.ran.push({ file: source.script, text });
  if ((program === 'source' || program === '.') && args[0]?.literal) out.ran.push({ file: args[0].literal, text });
  if (source?.kind === 'code' && SHELLS.has(program)) await nested(source.text, 'interpreter_code', out, ctx);
  else if (source?.kind === 'dynamic_code') addDynamic(out, 'interpreter_code', text);
  else if (source?.kind === 'input') await programInput(program, text, out, ctx);
  const { writes, unknown } = programWrites(program, args);
  let placed = !unknown && !(ctx.fromInput && isWriter(program));
  const from = out.writes.length;
  for (const w of writes) placed = placeWrite(w, out, ctx) && placed;
  if (!placed) addDynamic(out, 'write_target', text);
  if (makesLink(program, args)) out.links.push({ text, from, to: out.writes.length });
}

/**
 * Adds a write the shell process makes, or returns false when its place is
 * not known statically: a relative path after a directory change, a `/proc`
 * path other than the shell's own `/proc/self/cwd/…` (the shell's working
 * directory, not the worker's) or `/proc/self/root/…`.
 */
function placeWrite(w: RawWrite, out: Collected, ctx: Context): boolean {
  const proc = /^\/proc\/(self|thread-self)\/(cwd|root)(\/.*)?$/.exec(w.path);
  let path = w.path;
  if (proc) path = proc[2] === 'root' ? (proc[3] ?? '/') : `.${proc[3] ?? ''}`;
  else if (path === '/proc' || path.startsWith('/proc/')) return false;
  if (ctx.cwdMoved && !path.startsWith('/')) return false;
  out.writes.push({ ...w, path });
  return true;
}

/**
 * Adds one simple command given as words (`prefix`: its leading assignments):
 * its text to `commands` (or, for a command another one runs — `find -exec`,
 * `parallel` — to `unwrapped`), what its wrappers run, and {@link analyzeProgram}.
 */
async function analyzeWords(words: Word[], prefix: string[], out: Collected, ctx: Context, top: boolean) {
  const full = [...prefix, joinWords(words)].filter((t, i) => i < prefix.length || t !== '').join(' ');
  if (full !== '') (top ? out.commands : out.unwrapped).add(full);
  const found = programIndex(words);
  if ('dynamic' in found) return addDynamic(out, found.dynamic, full);
  const at = found.at;
  if (at >= words.length) return;
  const runs = words.slice(at);
  const inner = joinWords(runs);
  if (inner !== full) out.unwrapped.add(inner);
  const program = programBase(runs[0]!.literal!);
  out.ran.push({ file: runs[0]!.literal!, text: full });
  const rest = runs.slice(1).map((w) => w.text);
  // `/bin/rm x` is `rm x` to a rule; what `xargs` runs gets arguments from its input (`xargs rm` runs `rm …`).
  if (program !== runs[0]!.literal) out.unwrapped.add([program, ...rest].join(' '));
  const viaXargs = words.slice(0, at).some((w) => w.literal !== null && programBase(w.literal) === 'xargs');
  if (viaXargs) out.unwrapped.add([program, ...rest, '<input>'].join(' '));
  await analyzeProgram(program, runs.slice(1), full, out, {
    ...ctx,
    cwdMoved: ctx.cwdMoved || found.chdir,
    fromInput: ctx.fromInput || viaXargs,
  });
}

async function addCommand(node: ShNode, out: Collected, ctx: Context, outer: ShNode[]): Promise<void> {
  const own = node.children.filter((c) => c.field === 'redirect');
  const stdin = stdinOf([...own, ...outer]);
  const assignments = node.children.filter((c) => c.type === 'variable_assignment').map(assignmentText);
  const { name, args } = commandWords(node);
  const nodes = name ? [name, ...args] : args;
  const words: Word[] = nodes.map((n, i) => {
    const word: Word = { text: wordText(n), literal: literalWord(n) };
    const gap = i === 0 ? '' : gapBetween(node, nodes[i - 1]!, n);
    // Only blanks between them (no redirection): keep a CR, FF or VT there, the rest as one space.
    return /^[ \t\r\f\v]*[\r\f\v][ \t\r\f\v]*$/.test(gap) ? { ...word, gap: gap.replace(/[ \t]+/g, ' ') } : word;
  });
  await analyzeWords(words, assignments, out, { ...ctx, ...(stdin ? { stdin } : {}) }, true);
}

/** The source text of `node` between words `a` and `b` (its children), without line continuations. */
function gapBetween(node: ShNode, a: ShNode, b: ShNode): string {
  return node.text.slice(a.start + a.text.length - node.start, b.start - node.start).replace(/\\\n/g, '');
}

/** A redirection that opens a file for writing (`>`, `>>`, `&>`, `&>>`, `>|`, `>& file`), as a write. */
function addRedirect(node: ShNode, out: Collected, ctx: Context): void {
  const op = node.children.find((c) => !c.named)?.text ?? '';
  if (!op.includes('>')) return;
  const dest = node.children.find((c) => c.field === 'destination');
  if (!dest) return;
  const path = literalWord(dest);
  if (path !== null && (FD_TARGET.test(path) || DEVICES.test(path))) return;
  if (path === null || path === '' || !placeWrite({ path }, out, ctx)) addDynamic(out, 'write_target', node.text);
}

async function walk(node: ShNode, out: Collected, ctx: Context, outer: ShNode[] = []): Promise<void> {
  if (node.type === 'command') {
    await addCommand(node, out, ctx, outer);
  } else if (node.type === 'file_redirect') {
    addRedirect(node, out, ctx);
  } else if (node.type === 'function_definition') {
    addDynamic(out, 'function', quote(node.text));
  } else if (node.type === 'declaration_command' || node.type === 'unset_command') {
    const parts = node.children
      .filter((c) => c.type !== 'comment')
      .map((c) => (c.type === 'variable_assignment' ? assignmentText(c) : c.named ? wordText(c) : c.text));
    out.commands.add(parts.join(' '));
  }
  // A statement's redirections are the input of the command it redirects (`sh <<EOF … EOF`).
  const redirects = node.type === 'redirected_statement' ? node.children.filter((c) => c.field === 'redirect') : [];
  for (const child of node.children) await walk(child, out, ctx, child.field === 'body' ? redirects : []);
}

/**
 * true when `file` (a program word, a script) may be a file the command
 * writes: the same path (`./d`, `x/../d`), or, for a bare name found on the
 * `PATH`, the same last segment; a file under a written tree counts.
 */
function runsWritten(file: string, writes: RawWrite[]): boolean {
  const bare = !file.includes('/');
  const run = posix.normalize(file);
  return writes.some((w) => {
    const names = w.into ? [w.path, ...w.into.names.map((n) => `${w.path}/${n}`)] : [w.path];
    return names.some((n) => {
      const written = posix.normalize(n).replace(/\/+$/, '');
      if (bare) return baseName(written) === file || (w.tree === true && written.split('/').includes(file));
      return run === written || (w.tree === true && run.startsWith(`${written}/`));
    });
  });
}

/**
 * true when some command of the tree may change the working directory:
 * `cd`, `pushd`, `popd` (behind wrappers too), or a program chosen at run
 * time (it could be one of them).
 */
function movesCwd(node: ShNode): boolean {
  if (node.type === 'command') {
    const { name, args } = commandWords(node);
    const words = (name ? [name, ...args] : args).map((n) => ({ text: n.text, literal: literalWord(n) }));
    const found = programIndex(words);
    if ('dynamic' in found) return true;
    const program = words[found.at]?.literal;
    if (program === 'cd' || program === 'pushd' || program === 'popd') return true;
  }
  return node.children.some(movesCwd);
}

/** The read-write redirection `[n]<>file`, which the parser does not read. */
const READ_WRITE = /<>/;

/**
 * A `<>` (read-write) redirection opens its file for writing: the text is
 * read again with each `<>` spelled `>`, and what that finds — its writes,
 * dynamic parts, and its commands (as `unwrapped`) — is added to the
 * unparsed text's. (Its file is written, and as input `>` gives none, so an
 * interpreter reading its program from it still fails closed.)
 */
async function readWriteAsWrite(source: string, out: Collected, ctx: Context): Promise<void> {
  const alt = collected();
  await collect(source.replace(/<>/g, '>'), alt, ctx);
  for (const c of [...alt.commands, ...alt.unwrapped]) out.unwrapped.add(c);
  const at = out.writes.length;
  for (const l of alt.links) out.links.push({ text: l.text, from: l.from + at, to: l.to + at });
  out.writes.push(...alt.writes);
  for (const [k, d] of alt.dynamic) if (!out.dynamic.has(k)) out.dynamic.set(k, d);
  out.ran.push(...alt.ran);
}

async function collect(source: string, out: Collected, ctx: Context): Promise<void> {
  const parsed = await parseCommand(source);
  if (!parsed.ok) {
    const raw = source.trim();
    if (raw !== '') {
      out.commands.add(raw);
      addDynamic(out, 'unparsed', quote(raw));
    }
    if (READ_WRITE.test(source)) await readWriteAsWrite(source, out, ctx);
    return;
  }
  await walk(parsed.root, out, { ...ctx, cwdMoved: ctx.cwdMoved || movesCwd(parsed.root) });
}

/**
 * The shell subject of a shell call's `command` text: see
 * {@link ShellSubject} and the module comment. At most {@link MAX_WRITES}
 * writes (more add a `write_target` part) and {@link MAX_DYNAMIC_PER_KIND}
 * dynamic parts of each kind. A command that makes a link (writers.ts
 * `makesLink`) while the text writes other files adds a `link_write` part.
 * Text that does not parse is
 * one command, the text itself trimmed, and an `unparsed` dynamic part. A
 * relative write after a `cd` is a `write_target` dynamic part instead of a
 * write. Never throws (a parser that cannot load counts as text that does
 * not parse).
 */
export async function shellSubject(command: string): Promise<ShellSubject> {
  const out = collected();
  await collect(command, out, { depth: 0, cwdMoved: false, fromInput: false });
  for (const r of out.ran) if (runsWritten(r.file, out.writes)) addDynamic(out, 'written_program', r.text);
  // A link made here is not on disk when the rules place the other writes: they could go through it.
  for (const l of out.links)
    if (out.writes.some((_, i) => i < l.from || i >= l.to)) addDynamic(out, 'link_write', l.text);
  if (out.writes.length > MAX_WRITES) addDynamic(out, 'write_target', `more than ${MAX_WRITES} files written`);
  const perKind = new Map<DynamicKind, number>();
  const dynamic = [...out.dynamic.values()].filter((d) => {
    const n = (perKind.get(d.kind) ?? 0) + 1;
    perKind.set(d.kind, n);
    return n <= MAX_DYNAMIC_PER_KIND;
  });
  return {
    commands: [...out.commands],
    unwrapped: [...out.unwrapped].filter((u) => !out.commands.has(u)),
    writes: out.writes.slice(0, MAX_WRITES),
    dynamic,
  };
}

/** What {@link subjectCommands} collects, each text once, in order. */
export interface CommandTexts {
  commands: string[];
  unwrapped: string[];
}

/**
 * The simple commands of a shell call's `command` text.
 *
 * @returns `commands`: each simple command as spelled (leading assignments
 *   included, `FOO=1 make`), in source order, each once; `unwrapped`: for a
 *   command behind leading assignments or wrappers (`env`, `sudo`, `timeout`,
 *   `nice`, `xargs`, …: words.ts `WRAPPERS`), the command they run
 *   (`sudo rm -rf /` → `rm -rf /`), and what `find -exec` and `parallel`
 *   run. Text that does not parse is one command, the text itself, trimmed.
 *   Never throws (a parser that cannot load counts as text that does not
 *   parse).
 */
export async function subjectCommands(command: string): Promise<CommandTexts> {
  const { commands, unwrapped } = await shellSubject(command);
  return { commands, unwrapped };
}
