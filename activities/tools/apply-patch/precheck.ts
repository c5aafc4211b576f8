/**
 * The pre-check of FT3: every path resolved, every touched file read,
 * credentials checked, every hunk matched and every new content computed —
 * before the first write, so any conflict or failure means zero writes.
 *
 * Operations run in patch order against an in-memory view of the touched
 * paths (a later section sees what an earlier one did, as in Codex). A file is
 * checked against the session's credential the first time the patch touches
 * it; what the patch itself produced needs no credential.
 *
 * Credentials (the seed's rule): an existing file that is updated, deleted,
 * moved, moved onto, or overwritten by an Add needs a credential whose
 * `sha256` is the file's current digest: none → `ReadRequired`, different →
 * `StaleRead`. After the first conflict the remaining sections are only
 * scanned for further credential conflicts (reported in `others`) so the model
 * can read everything it needs at once.
 *
 * IdenticalReplay (the seed: "the same operation digest acting again on the
 * same file content"): the session's credential for the file carries this
 * operation's digest and still matches the content (apply_patch wrote it);
 * or, without that stamp, the operation would change nothing: an Add whose
 * content is already the file's, an Update producing the same bytes, or hunks
 * that no longer match but are found applied (undoing them applies cleanly and
 * redoing them gives the file back).
 */
import { decodeText, encodeText, styleFor, type TextFile } from './text.js';
import { bomAnchoredChunks } from './bom.js';
import { alreadyApplied, applyChunks } from './hunks.js';
import { unifiedDiff } from './diff.js';
import { operationDigest, sha256HexPaced } from './digest.js';
import { Pacer } from './pace.js';
import { loadDiskState, type DiskState } from './fs-state.js';
import { resolvePatchPath, type PatchPath } from './paths.js';
import type { AuthorityScope } from '../path-authority.js';
import { contextMismatch, identicalReplay, readRequired, staleRead, type ConflictBase } from './conflicts.js';
import type { FileOperation, ParsedPatch } from './parse.js';
import type {
  ConflictDetail,
  FailureCode,
  FileChange,
  PatchConflictResult,
  PatchCredential,
  PatchFailed,
} from './result.js';

/** In-memory view of a path while the patch is pre-applied. */
type View = { kind: 'missing' } | { kind: 'dir' } | { kind: 'other' } | { kind: 'file'; bytes: Buffer; mode?: number };

/** One path the patch touches. */
export interface Slot {
  path: PatchPath;
  /** State on disk at pre-check time. */
  original: DiskState;
  /** State after the operations pre-applied so far. */
  view: View;
  /** An earlier operation of this patch already touched (and checked) it. */
  touched: boolean;
  /** Digest of the first operation that touched it (for conflicts found while publishing). */
  firstDigest?: string;
  /** Digest of the last operation that left content at this path, and the index of its change. */
  last?: { digest: string; change: number };
}

/** What publishing has to do, computed by the pre-check. */
export interface PublishPlan {
  /** Every touched path, in first-touch order. */
  slots: Slot[];
  /** Files to publish (temp file + rename), in first-touch order. */
  writes: Array<{ slot: Slot; bytes: Buffer; mode?: number }>;
  /** Files to remove (after all writes, so a move's destination exists before its source goes). */
  unlinks: Slot[];
  changes: FileChange[];
}

/** Pre-check outcome. */
export type PrecheckResult = { ok: true; plan: PublishPlan } | { ok: false; result: PatchConflictResult | PatchFailed };

class Failure {
  constructor(readonly result: PatchFailed) {}
}

function failed(code: FailureCode, message: string, path?: string): Failure {
  return new Failure(
    path === undefined ? { status: 'failed', code, message } : { status: 'failed', code, message, path },
  );
}

const digestOf = (s: Slot) => (s.original.kind === 'file' ? s.original.sha256 : null);

const touchAll = (ss: Slot[], digest: string, ...cs: Array<ConflictDetail | undefined>): ConflictDetail[] => {
  for (const s of ss) touch(s, digest);
  return cs.filter((c): c is ConflictDetail => c !== undefined);
};

function touch(s: Slot, digest: string): void {
  if (!s.touched) s.firstDigest = digest;
  s.touched = true;
}

function base(s: Slot, digest: string): ConflictBase {
  return { resource: s.path.rel, operationDigest: digest, currentDigest: digestOf(s) };
}

function notAFile(s: Slot, verb: string): Failure {
  return failed(
    'not_a_file',
    `${s.path.rel} is ${s.view.kind === 'dir' ? 'a directory' : 'not a regular file'}; apply_patch cannot ${verb} it.`,
    s.path.rel,
  );
}

/** An Update's new content: its bytes, diff and fuzz, or the conflict that stops it. */
type UpdatedContent = { bytes: Buffer; diff: string; fuzz: FileChange['fuzz'] } | { conflict: ConflictDetail };

/**
 * Pre-checks a parsed patch against the workspace.
 *
 * @param root real workspace root; `givenRoot` the configured one.
 * @param credentials newest credential the session holds per canonical relative path.
 * @param scope owns the directory descriptors of the resolved paths (the caller closes it after publishing).
 * @returns the publish plan, or the first conflict (plus further credential
 *   conflicts in `others`), or the first ordinary failure.
 */
export async function precheck(
  parsed: ParsedPatch,
  root: string,
  givenRoot: string,
  credentials: (relPath: string) => PatchCredential | undefined,
  scope: AuthorityScope,
): Promise<PrecheckResult> {
  const check = new Precheck(root, givenRoot, credentials, scope);
  const conflicts: ConflictDetail[] = [];
  for (const op of parsed.operations) {
    try {
      conflicts.push(...(await check.run(op, conflicts.length > 0)));
    } catch (err) {
      if (!(err instanceof Failure)) throw err;
      if (conflicts.length === 0) return { ok: false, result: err.result };
    }
  }
  if (conflicts.length > 0) {
    const [first, ...others] = conflicts;
    return { ok: false, result: { status: 'conflict', ...first!, others } };
  }
  return { ok: true, plan: publishPlan([...check.slots.values()], check.changes) };
}

/** What publishing does for the pre-applied slots: write changed files, remove files the patch removed. */
function publishPlan(slots: Slot[], changes: FileChange[]): PublishPlan {
  const writes: PublishPlan['writes'] = [];
  const unlinks: Slot[] = [];
  for (const s of slots) {
    const o = s.original;
    if (s.view.kind === 'file') {
      const same = o.kind === 'file' && o.bytes.equals(s.view.bytes) && (s.view.mode ?? o.mode) === o.mode;
      if (!same)
        writes.push(
          s.view.mode === undefined
            ? { slot: s, bytes: s.view.bytes }
            : { slot: s, bytes: s.view.bytes, mode: s.view.mode },
        );
    } else if (s.view.kind === 'missing' && o.kind === 'file') {
      unlinks.push(s);
    }
  }
  return { slots, writes, unlinks, changes };
}

/** The pre-check's state: the touched paths' views and the changes so far, in patch order. */
class Precheck {
  readonly slots = new Map<string, Slot>();
  readonly changes: FileChange[] = [];
  /** One pacer for the whole pre-check: big files are decoded, matched, encoded, diffed and hashed in paced slices. */
  private readonly pace = new Pacer();

  constructor(
    private readonly root: string,
    private readonly givenRoot: string,
    private readonly credentials: (relPath: string) => PatchCredential | undefined,
    private readonly scope: AuthorityScope,
  ) {}

  /** Runs one operation; returns the conflicts it raised (then nothing was pre-applied). Throws {@link Failure}. */
  run(op: FileOperation, scanOnly: boolean): Promise<ConflictDetail[]> {
    if (op.kind === 'add') return this.add(op, scanOnly);
    if (op.kind === 'delete') return this.delete(op, scanOnly);
    return this.update(op, scanOnly);
  }

  private async slotFor(input: string): Promise<Slot> {
    const r = await resolvePatchPath(this.scope, this.root, input, this.givenRoot);
    if (!r.ok) throw failed(r.refusal.code, r.refusal.message, input);
    const known = this.slots.get(r.path.rel);
    if (known) return known;
    let original: DiskState;
    try {
      original = await loadDiskState(r.path.authority.target, this.pace);
    } catch (err) {
      const code = (err as NodeJS.ErrnoException).code ?? String(err);
      throw failed('cannot_read', `Cannot read ${r.path.rel}: ${code}.`, r.path.rel);
    }
    const view: View =
      original.kind === 'file' ? { kind: 'file', bytes: original.bytes, mode: original.mode } : original;
    const slot: Slot = { path: r.path, original, view, touched: false };
    this.slots.set(r.path.rel, slot);
    return slot;
  }

  /** ReadRequired / StaleRead for the first touch of an existing file. */
  private credentialConflict(s: Slot, digest: string, role: string): ConflictDetail | undefined {
    if (s.touched || s.original.kind !== 'file') return undefined;
    const cred = this.credentials(s.path.rel);
    if (!cred) return readRequired(base(s, digest), role);
    if (cred.sha256 !== s.original.sha256) return staleRead(base(s, digest), cred.sha256);
    return undefined;
  }

  /** IdenticalReplay by the seed's rule: the current content's credential was issued by this very operation. */
  private stampedReplay(s: Slot, digest: string): ConflictDetail | undefined {
    if (s.touched || s.original.kind !== 'file') return undefined;
    const cred = this.credentials(s.path.rel);
    if (cred?.operationDigest !== digest || cred.sha256 !== s.original.sha256) return undefined;
    return identicalReplay(base(s, digest), 'its current content was written by this same operation');
  }

  private async decode(s: Slot, bytes: Buffer): Promise<TextFile> {
    const t = await decodeText(bytes, this.pace);
    if (t === 'binary')
      throw failed(
        'binary_file',
        `${s.path.rel} is a binary file (contains NUL bytes); apply_patch edits text only.`,
        s.path.rel,
      );
    if (t === 'not_utf8')
      throw failed('not_utf8', `${s.path.rel} is not valid UTF-8; apply_patch edits UTF-8 text only.`, s.path.rel);
    return t;
  }

  private record(s: Slot, digest: string, change: FileChange): void {
    this.changes.push(change);
    s.last = { digest, change: this.changes.length - 1 };
  }

  private async add(op: Extract<FileOperation, { kind: 'add' }>, scanOnly: boolean): Promise<ConflictDetail[]> {
    const pace = this.pace;
    const s = await this.slotFor(op.path);
    const digest = operationDigest(op, s.path.rel);
    if (s.view.kind === 'dir' || s.view.kind === 'other') throw notAFile(s, 'overwrite');
    const c = this.credentialConflict(s, digest, 'overwrites (Add File)');
    if (c || scanOnly) return touchAll([s], digest, c);
    const replay = this.stampedReplay(s, digest);
    if (replay) return touchAll([s], digest, replay);
    const before = s.view.kind === 'file' ? await decodeText(s.view.bytes, pace) : undefined;
    const oldText = typeof before === 'object' ? before : undefined;
    const text: TextFile = { ...styleFor(oldText), lines: op.lines };
    const bytes = await encodeText(text, pace);
    if (s.view.kind === 'file' && !s.touched && bytes.equals(s.view.bytes)) {
      return touchAll([s], digest, identicalReplay(base(s, digest), 'the file already has exactly this content'));
    }
    const diff = await unifiedDiff(
      s.view.kind === 'file'
        ? { path: s.path.rel, lines: oldText?.lines ?? [], finalNewline: oldText?.finalNewline ?? false }
        : null,
      { path: s.path.rel, lines: text.lines, finalNewline: text.finalNewline },
      undefined,
      pace,
    );
    s.view = { kind: 'file', bytes, mode: s.view.kind === 'file' ? s.view.mode : undefined };
    touch(s, digest);
    this.record(s, digest, {
      path: s.path.rel,
      op: 'add',
      diff,
      newSha256: await sha256HexPaced(bytes, pace),
      operationDigest: digest,
      fuzz: 0,
    });
    return [];
  }

  private async delete(op: Extract<FileOperation, { kind: 'delete' }>, scanOnly: boolean): Promise<ConflictDetail[]> {
    const s = await this.slotFor(op.path);
    const digest = operationDigest(op, s.path.rel);
    if (s.view.kind === 'missing') {
      throw failed(
        'not_found',
        `${s.path.rel} ${s.touched ? 'was already removed earlier in this patch' : 'does not exist'}; nothing to delete.`,
        s.path.rel,
      );
    }
    if (s.view.kind !== 'file') throw notAFile(s, 'delete');
    const c = this.credentialConflict(s, digest, 'deletes');
    if (c || scanOnly) return touchAll([s], digest, c);
    const t = await decodeText(s.view.bytes, this.pace);
    const diff = await unifiedDiff(
      typeof t === 'object'
        ? { path: s.path.rel, lines: t.lines, finalNewline: t.finalNewline }
        : { path: s.path.rel, lines: [], finalNewline: false },
      null,
      undefined,
      this.pace,
    );
    s.view = { kind: 'missing' };
    touch(s, digest);
    this.changes.push({ path: s.path.rel, op: 'delete', diff, operationDigest: digest, fuzz: 0 });
    s.last = undefined;
    return [];
  }

  private async update(op: Extract<FileOperation, { kind: 'update' }>, scanOnly: boolean): Promise<ConflictDetail[]> {
    const src = await this.slotFor(op.path);
    const target = op.moveTo !== undefined ? await this.slotFor(op.moveTo) : src;
    const moving = target !== src;
    const digest = operationDigest(op, src.path.rel, moving ? target.path.rel : undefined);
    if (src.view.kind === 'missing') {
      const replay = moving ? this.stampedReplay(target, digest) : undefined;
      if (replay) return touchAll([src, target], digest, replay);
      throw failed(
        'not_found',
        `${src.path.rel} ${src.touched ? 'was removed earlier in this patch' : 'does not exist'}; use '*** Add File:' to create a file.`,
        src.path.rel,
      );
    }
    if (src.view.kind !== 'file') throw notAFile(src, 'update');
    if (moving && (target.view.kind === 'dir' || target.view.kind === 'other'))
      throw notAFile(target, 'move a file onto');
    const found = [
      this.credentialConflict(src, digest, moving ? 'moves' : 'updates'),
      moving ? this.credentialConflict(target, digest, 'moves another file onto') : undefined,
    ].filter((c): c is ConflictDetail => c !== undefined);
    if (found.length > 0 || scanOnly) return touchAll([src, target], digest, ...found);
    const replay = moving ? undefined : this.stampedReplay(src, digest);
    if (replay) return touchAll([src], digest, replay);
    const content = await this.updatedContent(op, src, src.view.bytes, target, digest);
    if ('conflict' in content) return touchAll([src, target], digest, content.conflict);
    const { bytes, diff, fuzz } = content;
    if (!moving && !src.touched && bytes.equals(src.view.bytes)) {
      return touchAll([src], digest, identicalReplay(base(src, digest), 'applying it changes nothing'));
    }
    const mode = src.view.mode;
    if (moving) {
      src.view = { kind: 'missing' };
      src.last = undefined;
    }
    target.view = { kind: 'file', bytes, mode };
    touch(src, digest);
    touch(target, digest);
    const change: FileChange = {
      path: target.path.rel,
      op: moving ? 'move' : 'update',
      diff,
      newSha256: await sha256HexPaced(bytes, this.pace),
      operationDigest: digest,
      fuzz,
    };
    if (moving) change.from = src.path.rel;
    this.record(target, digest, change);
    return [];
  }

  /** The hunks of an Update applied to `src`'s current `bytes` (a pure move keeps them), or the conflict. */
  private async updatedContent(
    op: Extract<FileOperation, { kind: 'update' }>,
    src: Slot,
    bytes: Buffer,
    target: Slot,
    digest: string,
  ): Promise<UpdatedContent> {
    const pace = this.pace;
    if (op.chunks.length === 0) {
      const diff = await unifiedDiff(
        { path: src.path.rel, lines: [], finalNewline: false },
        { path: target.path.rel, lines: [], finalNewline: false },
      );
      return { bytes, diff, fuzz: 0 };
    }
    const text = await this.decode(src, bytes);
    const chunks = text.bom ? bomAnchoredChunks(op.chunks) : op.chunks;
    const r = await applyChunks(text.lines, chunks, text.endings, text.eol, pace);
    if (!r.ok) {
      const b = base(src, digest);
      const done = !src.touched && (await alreadyApplied(text.lines, chunks, pace));
      return {
        conflict: done ? identicalReplay(b, 'every hunk is found already applied') : contextMismatch(b, r.mismatch),
      };
    }
    const next: TextFile = { ...styleFor(text), lines: r.lines, ...(r.endings ? { endings: r.endings } : {}) };
    const nextBytes = await encodeText(next, pace);
    const diff = await unifiedDiff(
      { path: src.path.rel, lines: text.lines, finalNewline: text.finalNewline },
      { path: target.path.rel, lines: next.lines, finalNewline: next.finalNewline },
      r.replacements,
      pace,
    );
    return { bytes: nextBytes, diff, fuzz: r.fuzz };
  }
}
