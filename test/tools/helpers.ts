import { chmodSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach } from 'vitest';
import type { ToolContext } from '../../activities/tools/context.js';
import { createRgLocator, ZUNO_PROJECT_ROOT } from '../../activities/tools/rg.js';
import { findBinary } from '../../activities/infra/tool-binaries.js';

/** The real pinned rg (installed by `node scripts/setup-tools.mjs`). */
export const REAL_RG = (() => {
  const p = findBinary('rg', { projectRoot: ZUNO_PROJECT_ROOT });
  if (!p) throw new Error('rg not found: run `node scripts/setup-tools.mjs` first');
  return p;
})();

const dirs: string[] = [];
afterEach(() => {
  while (dirs.length) rmSync(dirs.pop()!, { recursive: true, force: true });
});

/** A fresh temp directory, removed after the test. */
export function tempDir(prefix = 'zuno-tools-'): string {
  const d = mkdtempSync(join(tmpdir(), prefix));
  dirs.push(d);
  return d;
}

/** Writes files (path → content) under root, creating parent directories. */
export function writeTree(root: string, files: Record<string, string | Buffer>): void {
  for (const [rel, content] of Object.entries(files)) {
    const abs = join(root, rel);
    mkdirSync(dirname(abs), { recursive: true });
    writeFileSync(abs, content);
  }
}

/** Writes an executable shell script (a real binary stand-in, e.g. a fake old rg). */
export function writeScript(path: string, body: string): string {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `#!/bin/sh\n${body}\n`);
  chmodSync(path, 0o755);
  return path;
}

/** A tool context on `workspace` using the real rg through a fresh discovery cache. */
export function ctxFor(workspace: string, extra: Partial<ToolContext> = {}): ToolContext {
  return {
    workspace,
    sessionId: 'ses_test',
    rowId: 'tc_1_0_0',
    callId: 'call_test',
    rg: createRgLocator({ bin: REAL_RG }),
    ...extra,
  };
}
