/**
 * What an approval shows a person (issue 26 item 1): the call as the model
 * sent it — for a tool whose subject is a command (shell), the whole command
 * text, redirections, heredocs, pipes and lists included; for the file tools,
 * their paths — and the parsed parts the rules matched (each simple command,
 * each path) as a secondary line. Deterministic: the session workflow builds
 * every pending approval with it.
 *
 * Where a command runs is part of what it does: a call with a `workdir` other
 * than the workspace root shows (and so digests and grants) the text with a
 * marker in front, `(in "pub") echo x > k` — the directory JSON-quoted, so no
 * two (directory, command) pairs share a text. A command at the root that
 * itself begins with the marker's opening `(in "` is shown as `(in ".") …`
 * for the same reason.
 */
import { toolDeclarations } from '../tools/registry.js';
import { subjectTexts } from './evaluate.js';
import type { CallSubject } from './types.js';

/** What the shown text is: a command as sent, a list of paths, a URL without its query (issue 31), or only the tool's name. */
export type ShownKind = 'command' | 'paths' | 'url' | 'none';

/** The text a person approves, and what the rules read in it. */
export interface ShownSubject {
  kind: ShownKind;
  /** The full text: what runs (a shell command exactly as sent), or the paths joined by `; `, or the tool name. */
  text: string;
  /**
   * The parsed parts the rules decided on, each once, in order: simple commands, unwrapped commands and paths,
   * then each file a shell command writes as `writes <path>` (issue 26 item 2); empty when there are none.
   */
  parts: string[];
}

/**
 * The shown subject of a call of `tool`.
 *
 * @param tool the tool name as the model sent it.
 * @param args the call's validated arguments (not parsed again); absent when they were left in
 *   the projection (too large for the history): then `text` is built from
 *   the subject's parts.
 * @param subject the subject modelStep computed (paths normalized, commands parsed).
 * @returns `kind` and `text`: a `command` subject source's command exactly as written; a `url`
 *   subject's URL (no query: what the rules matched); otherwise the subject's parts joined by `; `, or the tool name when there
 *   are none. `parts`: the subject texts rules match, then `writes <path>` for each file a
 *   shell command writes. Pure; never throws.
 */
export function shownSubject(
  tool: string,
  args: unknown,
  subject: CallSubject,
  options: { ignoreWorkdir?: boolean } = {},
): ShownSubject {
  const matched = subjectTexts(subject).filter((t) => t !== '');
  const writes = subject.kind === 'commands' ? (subject.writes ?? []).map((w) => `writes ${w}`) : [];
  const parts = [...matched, ...writes];
  const command = commandText(tool, args, options.ignoreWorkdir === true);
  if (command !== null) return { kind: 'command', text: command, parts };
  if (subject.kind === 'url') return { kind: 'url', text: subject.url, parts };
  if (matched.length > 0) return { kind: 'paths', text: matched.join('; '), parts };
  return { kind: 'none', text: tool, parts };
}

/** The opening of the marker that names a command's working directory. */
const WORKDIR_MARK = '(in "';

/**
 * The text of `command` run in `workdir`: the command alone at the workspace root (no workdir, `.`, `./`),
 * else `(in "<workdir>") <command>`; a root command beginning with the marker's opening gets `(in ".") `.
 */
export function commandWithWorkdir(command: string, workdir: string | undefined): string {
  const root = workdir === undefined || workdir === '.' || workdir === './';
  if (root && !command.startsWith(WORKDIR_MARK)) return command;
  return `(in ${JSON.stringify(root ? '.' : workdir)}) ${command}`;
}

/**
 * true when a call of `tool` with `args` names a working directory other than the workspace root (its shown text
 * then carries the `(in "…")` marker); false for every other call. Pure; never throws.
 */
export function hasWorkdir(tool: string, args: unknown): boolean {
  const source = sourceOf(tool, args);
  return source !== null && commandWithWorkdir('', source.workdir) !== '';
}

/** The command a call runs as written (with its working directory unless `ignoreWorkdir`), when the tool's subject is a command; else null. */
function commandText(tool: string, args: unknown, ignoreWorkdir: boolean): string | null {
  const source = sourceOf(tool, args);
  if (source === null) return null;
  return ignoreWorkdir ? source.command : commandWithWorkdir(source.command, source.workdir);
}

/** The command subject source of a call, or null when the tool's subject is not a command. */
function sourceOf(tool: string, args: unknown): { command: string; workdir?: string } | null {
  if (args === undefined) return null;
  const decl = Object.prototype.hasOwnProperty.call(toolDeclarations, tool) ? toolDeclarations[tool] : undefined;
  if (!decl?.subjectOf) return null;
  // `args` were validated (and defaulted) by modelStep; they are not parsed again here: a zod schema defines
  // properties on itself lazily, which the workflow sandbox's frozen modules refuse.
  try {
    const source = decl.subjectOf(args as never);
    if (source.kind !== 'command' || typeof source.command !== 'string') return null;
    return typeof source.workdir === 'string'
      ? { command: source.command, workdir: source.workdir }
      : { command: source.command };
  } catch {
    return null;
  }
}
