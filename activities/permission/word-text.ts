/**
 * The text of a shell word as a permission rule sees it (docs/permissions.md):
 * quotes removed and escapes applied the way the shell would (`"-rf"` → `-rf`,
 * `r\m` → `rm`, `$'\x72m'` → `rm`), while every part the shell would expand
 * keeps its source text (`$HOME`, `$(pwd)`, `*.ts`, `~`): patterns match it
 * literally.
 */
import type { ShNode } from '../tools/shell/syntax.js';
import { unescapeDouble, unescapeUnquoted } from '../tools/shell/words.js';

const SIMPLE_ESCAPES: Readonly<Record<string, string>> = {
  a: '\x07',
  b: '\b',
  e: '\x1b',
  E: '\x1b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
  v: '\v',
  '\\': '\\',
  "'": "'",
  '"': '"',
  '?': '?',
};

/** Bash's decoding of `$'…'` (ANSI-C quoting) for the escapes people write; others stay as written. */
function decodeAnsiC(body: string): string {
  return body.replace(
    /\\(x[0-9A-Fa-f]{1,2}|u[0-9A-Fa-f]{1,4}|U[0-9A-Fa-f]{1,8}|[0-7]{1,3}|c.|.)/gs,
    (whole, esc: string) => {
      const kind = esc[0]!;
      if (kind === 'x' || kind === 'u' || kind === 'U') {
        const code = parseInt(esc.slice(1), 16);
        return code <= 0x10ffff ? String.fromCodePoint(code) : whole;
      }
      if (/[0-7]/.test(kind)) return String.fromCodePoint(parseInt(esc, 8) & 0xff);
      if (kind === 'c' && esc.length === 2) return String.fromCharCode(esc.charCodeAt(1) & 0x1f);
      return SIMPLE_ESCAPES[esc] ?? whole;
    },
  );
}

/** Joins a node's pieces: named children through `piece`, the text between them through `gap`. */
function stitch(
  node: ShNode,
  from: number,
  to: number,
  piece: (child: ShNode) => string,
  gap: (text: string) => string,
): string {
  let out = '';
  let pos = from;
  for (const child of node.children) {
    const rel = child.start - node.start;
    if (rel < from || rel + child.text.length > to) continue; // the quotes themselves
    if (rel > pos) out += gap(node.text.slice(pos, rel));
    out += child.named ? piece(child) : gap(child.text);
    pos = rel + child.text.length;
  }
  if (pos < to) out += gap(node.text.slice(pos, to));
  return out;
}

/**
 * The text of one word node (a command name or argument): see the module
 * comment. `word`, `number`, `'raw'`, `"double"` (expansions inside kept as
 * written), `$'ansi-c'` and concatenations of them are unquoted; any other
 * node (an expansion, a substitution, `$"…"`) is its source text.
 */
export function wordText(node: ShNode): string {
  switch (node.type) {
    case 'word':
      return unescapeUnquoted(node.text);
    case 'number':
      return node.text;
    case 'raw_string':
      return node.text.slice(1, -1);
    case 'ansi_c_string':
      return decodeAnsiC(node.text.slice(2, -1));
    case 'string':
      return stitch(
        node,
        1,
        node.text.length - 1,
        (c) => (c.type === 'string_content' ? unescapeDouble(c.text) : c.text),
        unescapeDouble,
      );
    case 'concatenation':
      return stitch(node, 0, node.text.length, wordText, unescapeUnquoted);
    case 'command_name': {
      const inner = node.children[0];
      return inner ? wordText(inner) : node.text;
    }
    default:
      return node.text;
  }
}
