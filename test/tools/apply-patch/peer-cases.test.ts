/**
 * Held-out correctness (issue 3, deliverable 9): the Codex apply-patch
 * scenarios in `test/fixtures/peer-cases/codex-apply-patch/` run against Zuno's
 * engine, as that folder's SOURCE.md describes: copy `input/` into a scratch
 * directory, apply `patch.txt` there, compare the whole tree (directories
 * count as entries, bytes exact) with `expected/`.
 *
 * Classification is by the trees, never by folder names:
 * - `expected/` equals `input/`: upstream left nothing changed, so the patch
 *   is one to refuse; Zuno must refuse it and write nothing.
 * - `expected/` differs from `input/`: upstream changed the tree; Zuno must
 *   apply the patch and produce `expected/` exactly — unless the case is in
 *   {@link DELIBERATE_DIFFERENCES}, the one place that lists where Zuno's
 *   contract leads elsewhere, with what upstream does, what Zuno does and why.
 * - Whatever the case, a Zuno refusal leaves the input tree untouched (FT3:
 *   zero writes on any conflict or failure).
 *
 * Read credentials (FT3): upstream needs none. The first run issues a
 * credential for every input file with the real `read` tool (as a model that
 * read every file would hold). A second run without any credential checks
 * Zuno's own rule: a patch the first run applied that changes or removes an
 * existing file is `ReadRequired` with zero writes; one that only creates new
 * files applies the same; a patch the first run refused is refused again.
 *
 * The folder is `$ZUNO_PEER_CASES` or `<repo>/test/fixtures/peer-cases` (a copy kept in the repository); a missing
 * folder FAILS the suite (held-out tests must not silently vanish).
 */
import { cpSync, existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual } from 'node:util';
import { describe, expect, it } from 'vitest';
import {
  applyPatch,
  parsePatch,
  PatchSyntaxError,
  type ApplyPatchResult,
} from '../../../activities/tools/apply-patch/index.js';
import { CredentialStore, listFiles, snapshot, tempDir } from './helpers.js';

const REPO = fileURLToPath(new URL('../../../', import.meta.url));
const PEER_ROOT = process.env.ZUNO_PEER_CASES ?? resolve(REPO, 'test/fixtures/peer-cases');
const SUITE = join(PEER_ROOT, 'codex-apply-patch');
const CASES = existsSync(SUITE)
  ? readdirSync(SUITE, { withFileTypes: true })
      .filter((d) => d.isDirectory() && /^\d{3}_/.test(d.name))
      .map((d) => d.name)
      .sort()
  : [];

/** What Zuno does with a case where its contract departs from upstream's. */
interface Difference {
  /** What upstream's `expected/` shows. */
  upstream: string;
  /** What Zuno does instead. */
  zuno: string;
  /** The contract that makes Zuno differ. */
  why: string;
  /** The tree Zuno must leave with every input file's credential held: the untouched input, or upstream's `expected/`. */
  zunoTree: 'input' | 'expected';
}

/**
 * The deliberate differences from upstream, per case: the only place they are
 * listed. A case whose `expected/` differs from its input and is not here (or
 * is here with `zunoTree: 'expected'`) must come out exactly as `expected/`.
 */
const DELIBERATE_DIFFERENCES: Record<string, Difference> = {
  '015_failure_after_partial_success_leaves_changes': {
    upstream:
      'adds created.txt, then fails on the update of the missing missing.txt and keeps created.txt (no rollback)',
    zuno: 'refuses the whole patch (not_found on missing.txt) before writing anything; the tree stays the input',
    why: 'FT3: every file is pre-checked under one mutation lock; a single conflict or failure means zero writes',
    zunoTree: 'input',
  },
  '010_move_overwrites_existing_destination': {
    upstream: 'moves old/name.txt onto the existing renamed/dir/name.txt without any precondition',
    zuno: 'the same tree, but only with a read credential for the existing move target too; without one ReadRequired, zero writes',
    why: 'FT3: an existing move target must have a valid read credential',
    zunoTree: 'expected',
  },
  '011_add_overwrites_existing_file': {
    upstream: 'Add File replaces the existing duplicate.txt without any precondition',
    zuno: 'the same tree, but only with a read credential for duplicate.txt; without one ReadRequired, zero writes',
    why: 'FT3/FT2: replacing an existing file needs a fresh read credential',
    zunoTree: 'expected',
  },
  '014_update_file_appends_trailing_newline': {
    upstream: 'always ends an updated file with a newline',
    zuno: "keeps the file's final-newline state; the stored input already ends with one, so the trees agree (a file without one stays without, see apply.test.ts)",
    why: 'FT3: matching keeps BOM, LF/CRLF style and final-newline state',
    zunoTree: 'expected',
  },
};

type Outcome = ApplyPatchResult['status'] | 'invalid_arguments';

async function run(workspace: string, patchText: string, store: CredentialStore): Promise<Outcome> {
  let parsed;
  try {
    parsed = parsePatch(patchText);
  } catch (err) {
    expect(err).toBeInstanceOf(PatchSyntaxError);
    expect((err as PatchSyntaxError).code).toBe('invalid_arguments');
    return 'invalid_arguments';
  }
  const result = await applyPatch(parsed, { workspace, credentials: store.lookup });
  return result.status === 'conflict' ? (result.conflict as Outcome) : result.status;
}

/** The case's `expected/` tree (a missing folder is an empty tree). */
function expectedTree(name: string): Record<string, string> {
  const dir = join(SUITE, name, 'expected');
  return existsSync(dir) ? snapshot(dir) : {};
}

function scratch(name: string): string {
  const ws = tempDir('zuno-peer-');
  const input = join(SUITE, name, 'input');
  if (existsSync(input)) cpSync(input, ws, { recursive: true });
  return ws;
}

describe('peer cases: codex apply-patch scenarios', () => {
  it('the peer-case folder exists and holds the scenarios', () => {
    expect(existsSync(SUITE), `peer cases missing at ${SUITE} (set ZUNO_PEER_CASES)`).toBe(true);
    expect(CASES.length).toBeGreaterThanOrEqual(20);
  });

  it('every listed difference names a case that exists', () => {
    for (const name of Object.keys(DELIBERATE_DIFFERENCES)) expect(CASES).toContain(name);
  });

  it.each(CASES)('%s (credentials for every input file)', async (name) => {
    const dir = join(SUITE, name);
    const ws = scratch(name);
    const before = snapshot(ws);
    const expected = expectedTree(name);
    const store = await new CredentialStore().read(ws, ...listFiles(ws));
    const outcome = await run(ws, readFileSync(join(dir, 'patch.txt'), 'utf8'), store);
    const after = snapshot(ws);
    const difference = DELIBERATE_DIFFERENCES[name];
    const upstreamChanged = !isDeepStrictEqual(expected, before);
    if (!upstreamChanged) {
      // upstream refused: Zuno refuses too, and writes nothing
      expect(difference?.zunoTree, `${name}: a refused case needs no listed difference`).not.toBe('input');
      expect(outcome).not.toBe('applied');
      expect(after).toEqual(before);
    } else if (difference?.zunoTree === 'input') {
      // upstream changed the tree where Zuno's contract refuses: zero writes
      expect(outcome).not.toBe('applied');
      expect(after).toEqual(before);
    } else {
      expect(outcome).toBe('applied');
      expect(after).toEqual(expected);
    }
    if (outcome !== 'applied') expect(after).toEqual(before); // FT3: zero writes on any refusal
    expect(listFiles(ws).filter((f) => f.endsWith('.zuno-tmp'))).toEqual([]);
  });

  // Zuno's own rule, not upstream's: without read credentials, a patch that
  // changes or removes an existing file is ReadRequired and nothing is written.
  it.each(CASES)('%s without credentials', async (name) => {
    const patchText = readFileSync(join(SUITE, name, 'patch.txt'), 'utf8');
    const credited = scratch(name);
    const input = snapshot(credited);
    const creditedOutcome = await run(
      credited,
      patchText,
      await new CredentialStore().read(credited, ...listFiles(credited)),
    );
    const creditedTree = snapshot(credited);
    const touchesExisting = Object.entries(input).some(([p, v]) => v !== 'dir' && creditedTree[p] !== v);

    const ws = scratch(name);
    const outcome = await run(ws, patchText, new CredentialStore());
    if (creditedOutcome !== 'applied') {
      expect(outcome).not.toBe('applied');
      expect(snapshot(ws)).toEqual(input);
    } else if (touchesExisting) {
      expect(outcome).toBe('ReadRequired');
      expect(snapshot(ws)).toEqual(input);
    } else {
      // only creates new files: no credential needed
      expect(outcome).toBe('applied');
      expect(snapshot(ws)).toEqual(creditedTree);
    }
  });
});
