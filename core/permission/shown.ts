/**
 * What an approval shows a person (issue 26 item 1): the call as the model
 * sent it — for a tool whose subject is a command (shell), the whole command
 * text, redirections, heredocs, pipes and lists included; for the file tools,
 * their paths — and the parsed parts the rules matched (each simple command,
 * each path) as a secondary line. Deterministic: the session workflow builds
 * every pending approval with it.
 */
import { toolDeclarations } from '../tools/registry.js';
import { subjectTexts } from './evaluate.js';
import type { CallSubject } from './types.js';

/** What the shown text is: a command as sent, a list of paths, or only the tool's name. */
export type ShownKind = 'command' | 'paths' | 'none';

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
 * @returns `kind` and `text`: a `command` subject source's command exactly as written;
 *   otherwise the subject's parts joined by `; `, or the tool name when there
 *   are none. `parts`: the subject texts rules match, then `writes <path>` for each file a
 *   shell command writes. Pure; never throws.
 */
export function shownSubject(tool: string, args: unknown, subject: CallSubject): ShownSubject {
  const matched = subjectTexts(subject).filter((t) => t !== '');
  const writes = subject.kind === 'commands' ? (subject.writes ?? []).map((w) => `writes ${w}`) : [];
  const parts = [...matched, ...writes];
  const command = commandText(tool, args);
  if (command !== null) return { kind: 'command', text: command, parts };
  if (matched.length > 0) return { kind: 'paths', text: matched.join('; '), parts };
  return { kind: 'none', text: tool, parts };
}

/** The command a call runs as written, when the tool's subject is a command; else null. */
function commandText(tool: string, args: unknown): string | null {
  if (args === undefined) return null;
  const decl = Object.prototype.hasOwnProperty.call(toolDeclarations, tool) ? toolDeclarations[tool] : undefined;
  if (!decl?.subjectOf) return null;
  // `args` were validated (and defaulted) by modelStep; they are not parsed again here: a zod schema defines
  // properties on itself lazily, which the workflow sandbox's frozen modules refuse.
  try {
    const source = decl.subjectOf(args as never);
    return source.kind === 'command' && typeof source.command === 'string' ? source.command : null;
  } catch {
    return null;
  }
}
