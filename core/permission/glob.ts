/**
 * The pattern syntax of permission rules and session grants (PM10 SEED-GAP,
 * docs/permissions.md): a glob matched against the WHOLE subject text
 * (anchored at both ends), case-sensitive.
 *
 * - `*` matches any run of characters, `/` and spaces included (`git *`, `src/*`);
 * - `?` matches exactly one character;
 * - `\*`, `\?` and `\\` are a literal `*`, `?` and `\`; any other `\` is itself.
 *
 * No brackets, braces or `**`: `**` is two stars, the same as one.
 * Matching is linear-time backtracking over the last star, never a RegExp.
 */

type Token = { kind: 'star' } | { kind: 'one' } | { kind: 'char'; char: string };

function tokenize(pattern: string): Token[] {
  const chars = Array.from(pattern);
  const tokens: Token[] = [];
  for (let i = 0; i < chars.length; i++) {
    const c = chars[i]!;
    const next = chars[i + 1];
    if (c === '\\' && (next === '*' || next === '?' || next === '\\')) {
      tokens.push({ kind: 'char', char: next });
      i++;
    } else if (c === '*') {
      if (tokens.at(-1)?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') {
      tokens.push({ kind: 'one' });
    } else {
      tokens.push({ kind: 'char', char: c });
    }
  }
  return tokens;
}

/**
 * true when `pattern` matches all of `text` (see the module comment for the
 * syntax). Pure; never throws. `globMatch('rm -rf*', 'rm -rf build')` → true,
 * `globMatch('git *', 'git')` → false, `globMatch('*', '')` → true.
 */
export function globMatch(pattern: string, text: string): boolean {
  return matchTokens(tokenize(pattern), Array.from(text));
}

function matchTokens(tokens: Token[], chars: string[]): boolean {
  let p = 0;
  let s = 0;
  let starAt = -1;
  let starText = 0;
  while (s < chars.length) {
    const t = tokens[p];
    if (t && (t.kind === 'one' || (t.kind === 'char' && t.char === chars[s]))) {
      p++;
      s++;
    } else if (t?.kind === 'star') {
      starAt = p++;
      starText = s;
    } else if (starAt >= 0) {
      p = starAt + 1;
      s = ++starText;
    } else {
      return false;
    }
  }
  while (tokens[p]?.kind === 'star') p++;
  return p === tokens.length;
}

/**
 * true when `pattern` matches at least one text that starts with `prefix`
 * (a rule that could speak for some file under a directory: `secrets/*`
 * with prefix `secrets/`, or with prefix `` — the workspace root). Pure.
 */
export function globMatchesUnder(pattern: string, prefix: string): boolean {
  const tokens = tokenize(pattern);
  let p = 0;
  for (const c of Array.from(prefix)) {
    const t = tokens[p];
    if (!t) return false;
    if (t.kind === 'star') return true; // it takes the rest of the prefix, the tokens after it a suffix
    if (t.kind === 'char' && t.char !== c) return false;
    p++;
  }
  return true;
}

/**
 * true when `pattern` matches every text that starts with `prefix` (`*`,
 * `secrets/*` and `sec*` all cover `secrets/`; `secrets/*.key` does not).
 * A sufficient test: the pattern ends in `*` and what comes before it
 * matches some beginning of `prefix`. Pure.
 */
export function globCoversUnder(pattern: string, prefix: string): boolean {
  const tokens = tokenize(pattern);
  if (tokens.at(-1)?.kind !== 'star') return false;
  const head = tokens.slice(0, -1);
  const chars = Array.from(prefix);
  for (let j = 0; j <= chars.length; j++) if (matchTokens(head, chars.slice(0, j))) return true;
  return false;
}

/**
 * The pattern that matches exactly `text` and nothing else: `*`, `?` and `\`
 * escaped (`ls *.ts` → `ls \*.ts`). Used for "approve for this session"
 * grants, which cover the approved subject only.
 */
export function exactPattern(text: string): string {
  return text.replace(/[\\*?]/g, '\\$&');
}
