import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { runRead } from '../../../activities/tools/read.js';
import type { PatchCredential } from '../../../activities/tools/apply-patch/index.js';
import type { ReadCredential } from '../../../core/tools/read.js';

export { tempDir, writeTree } from '../helpers.js';

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });

/**
 * Recursive snapshot: relative path → `dir` or `file:<utf-8 text>` (`bin:<base64>` when not UTF-8).
 * Directories count as entries, like the peer-case runner's rule.
 */
export function snapshot(root: string): Record<string, string> {
  const out: Record<string, string> = {};
  const walk = (abs: string, rel: string) => {
    for (const d of readdirSync(abs, { withFileTypes: true })) {
      const r = rel ? `${rel}/${d.name}` : d.name;
      if (d.isDirectory()) {
        out[r] = 'dir';
        walk(join(abs, d.name), r);
      } else {
        const b = readFileSync(join(abs, d.name));
        try {
          out[r] = `file:${strictUtf8.decode(b)}`;
        } catch {
          out[r] = `bin:${b.toString('base64')}`;
        }
      }
    }
  };
  walk(root, '');
  return out;
}

/** Issues a read credential for one file with the real `read` tool (FT1). */
export async function readCredential(workspace: string, path: string): Promise<ReadCredential> {
  const r = await runRead({ path }, { workspace, sessionId: 'ses_patch_test', rowId: 'tc_1_0_0', callId: 'call_read' });
  // a binary file is an error for `read` but still carries its credential
  expect(r.isError === false || r.errorCode === 'binary_file', r.output).toBe(true);
  return r.data!.credential as ReadCredential;
}

/** The credentials a session holds: path → newest credential. */
export class CredentialStore {
  readonly byPath = new Map<string, PatchCredential>();
  /** Reads `paths` with the real `read` tool and records their credentials. */
  async read(workspace: string, ...paths: string[]): Promise<this> {
    for (const p of paths) {
      const c = await readCredential(workspace, p);
      this.byPath.set(c.path, c);
    }
    return this;
  }
  /** Records credentials issued by an applied patch. */
  record(changes: Array<{ credential?: PatchCredential }>): void {
    for (const c of changes) if (c.credential) this.byPath.set(c.credential.path, c.credential);
  }
  /** The `credentials` callback of ApplyPatchContext. */
  get lookup(): (p: string) => PatchCredential | undefined {
    return (p) => this.byPath.get(p);
  }
}

/** Every regular file under root, as workspace-relative paths. */
export function listFiles(root: string, rel = ''): string[] {
  const out: string[] = [];
  for (const d of readdirSync(join(root, rel), { withFileTypes: true })) {
    const r = rel ? `${rel}/${d.name}` : d.name;
    if (d.isDirectory()) out.push(...listFiles(root, r));
    else out.push(r);
  }
  return out;
}

/** Wraps patch body lines in Begin/End markers. */
export function patch(...body: string[]): string {
  return ['*** Begin Patch', ...body, '*** End Patch', ''].join('\n');
}

/** A big text file and a patch over it (issue 25, item 7: tools must heartbeat while they work on it). */
export interface BigPatchCase {
  /** The file's bytes: short LF lines `l<i> - x`. */
  content: Buffer;
  lineCount: number;
  /** An Update File patch of `path` with `hunks` one-line replacements spread over the file. */
  patch: string;
  /** The 0-based lines the patch replaces; each becomes `<old line> changed`. */
  changed: number[];
}

/**
 * Builds a big-file patch case of about `megabytes` MB. Short lines make many
 * of them (≈ 120 000 per MB), which is what costs time. With `typographic`,
 * the hunks' context lines spell the file's ` - ` as ` – ` (an en dash, as
 * models often copy it), so every hunk matches only at the loosest level:
 * each matching level is tried on the whole file.
 */
export function bigPatchCase(path: string, megabytes: number, hunks: number, typographic = false): BigPatchCase {
  const lines: string[] = [];
  for (let size = 0, i = 0; size < megabytes * 1_000_000; i++) {
    const l = `l${i} - x`;
    lines.push(l);
    size += l.length + 1;
  }
  const spell = (s: string) => (typographic ? s.replace(' - ', ' \u2013 ') : s);
  const body: string[] = [`*** Update File: ${path}`];
  const changed: number[] = [];
  for (let h = 0; h < hunks; h++) {
    const k = 10 + Math.floor((h * (lines.length - 20)) / hunks);
    changed.push(k);
    body.push(
      '@@',
      ` ${spell(lines[k - 1]!)}`,
      `-${spell(lines[k]!)}`,
      `+${lines[k]!} changed`,
      ` ${spell(lines[k + 1]!)}`,
    );
  }
  return { content: Buffer.from(`${lines.join('\n')}\n`), lineCount: lines.length, patch: patch(...body), changed };
}
