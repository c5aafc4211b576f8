/**
 * The bash syntax tree of a shell command (SH2, SH7), from tree-sitter-bash
 * (the grammar compiled to wasm) run by web-tree-sitter. No regexes: quoted
 * text is a string node, here-document bodies are text, and operators such as
 * `||`, `&&`, `|` and `&` are tokens of the tree.
 *
 * The wasm runtime and grammar load once per process (lazily, on the first
 * parse). Each parse is converted into a plain {@link ShNode} tree and the
 * wasm tree is freed at once, so callers never manage wasm memory.
 */
import { createRequire } from 'node:module';
import { Language, Parser } from 'web-tree-sitter';
import type { Node as TsNode } from 'web-tree-sitter';

/** One node of a parsed command, detached from the wasm tree. */
export interface ShNode {
  /** tree-sitter-bash node type: `command`, `list`, `pipeline`, `word`, `raw_string`, `&&`, `;` … */
  type: string;
  /** true for grammar nodes, false for anonymous tokens (`&&`, `|`, `&`, `;`, keywords). */
  named: boolean;
  /** Field name under its parent (`name`, `argument`, `condition`, `body`, `destination`, …), or null. */
  field: string | null;
  /** The exact source text of the node. */
  text: string;
  /** Start offset in the command string (UTF-16 code units). */
  start: number;
  children: ShNode[];
}

/** Result of {@link parseCommand}. */
export type ParseResult =
  | { ok: true; root: ShNode }
  | {
      ok: false;
      /** What went wrong, for a limitation note: the first ERROR/MISSING node, or a parser failure. */
      error: string;
    };

let parserPromise: Promise<Parser> | undefined;

async function loadParser(): Promise<Parser> {
  const require = createRequire(import.meta.url);
  await Parser.init();
  const language = await Language.load(require.resolve('tree-sitter-bash/tree-sitter-bash.wasm'));
  const parser = new Parser();
  parser.setLanguage(language);
  return parser;
}

/** The process-wide parser; a failed load is not cached, so the next call retries. */
function getParser(): Promise<Parser> {
  if (!parserPromise) {
    parserPromise = loadParser().catch((err: unknown) => {
      parserPromise = undefined;
      throw err;
    });
  }
  return parserPromise;
}

function convert(node: TsNode, field: string | null): ShNode {
  const children: ShNode[] = [];
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child) children.push(convert(child, node.fieldNameForChild(i)));
  }
  return { type: node.type, named: node.isNamed, field, text: node.text, start: node.startIndex, children };
}

function firstError(node: TsNode): TsNode | null {
  if (node.isError || node.isMissing) return node;
  for (let i = 0; i < node.childCount; i++) {
    const child = node.child(i);
    if (child?.hasError || child?.isMissing) {
      const found = firstError(child);
      if (found) return found;
    }
  }
  return null;
}

function describeError(source: string, node: TsNode | null): string {
  if (!node) return 'syntax error';
  const line = source.slice(0, node.startIndex).split('\n').length;
  if (node.isMissing) return `syntax error: missing \`${node.type}\` (line ${line})`;
  const near = node.text.split('\n', 1)[0]?.slice(0, 40) ?? '';
  return near ? `syntax error near \`${near}\` (line ${line})` : `syntax error (line ${line})`;
}

/**
 * Parses `command` as bash source.
 *
 * @returns `{ ok: true, root }` with the `program` node, or `{ ok: false,
 *   error }` when the text does not parse cleanly (any ERROR or MISSING node)
 *   or the parser could not be loaded. Never throws.
 */
export async function parseCommand(command: string): Promise<ParseResult> {
  let parser: Parser;
  try {
    parser = await getParser();
  } catch (err) {
    return {
      ok: false,
      error: `the shell parser could not be loaded (${err instanceof Error ? err.message : String(err)})`,
    };
  }
  const tree = parser.parse(command);
  if (!tree) return { ok: false, error: 'the parser returned no tree' };
  try {
    const root = tree.rootNode;
    if (root.hasError) return { ok: false, error: describeError(command, firstError(root)) };
    return { ok: true, root: convert(root, null) };
  } finally {
    tree.delete();
  }
}
