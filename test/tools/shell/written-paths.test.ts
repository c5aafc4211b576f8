import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseCommand } from '../../../activities/tools/shell/syntax.js';
import { staticPaths } from '../../../activities/tools/shell/written-paths.js';
import { sh, workspace } from './helpers.js';

async function paths(command: string): Promise<string[]> {
  const p = await parseCommand(command);
  if (!p.ok) throw new Error(p.error);
  return staticPaths(p.root);
}

describe('shell writtenPaths (SH7)', () => {
  it('static candidates: literal arguments and redirect targets, not expansions or fds', async () => {
    expect(await paths('echo x > out.txt')).toEqual(['x', 'out.txt']);
    expect(await paths("cp 'a b.txt' dest/ 2>&1")).toEqual(['a b.txt', 'dest/']);
    expect(await paths('sed -i s/a/b/ src/lib.rs --backup=old.rs')).toEqual(['s/a/b/', 'src/lib.rs', 'old.rs']);
    expect(await paths('echo x > "$OUT"; touch *.rs ~/x $(ls)')).toEqual(['x']);
    expect(await paths('touch bg.txt & touch fg.txt')).toEqual(['fg.txt']);
    expect(await paths('cat <<EOF > here.txt\nnot-a-path\nEOF')).toEqual(['here.txt']);
  });

  it('reports `echo x > out.txt` as written', async () => {
    const ws = workspace();
    const o = await sh(ws, 'echo x > out.txt');
    expect(o.writtenPaths).toEqual(['out.txt']);
    expect(o.output).toContain('Written: out.txt');
  });

  it('reports only observed changes: created or changed size/mtime, inside the workspace, not deleted', async () => {
    const root = workspace();
    const ws = join(root, 'ws');
    mkdirSync(join(ws, 'src'), { recursive: true });
    writeFileSync(join(ws, 'same.txt'), 'same\n');
    writeFileSync(join(ws, 'src', 'lib.rs'), 'foo\n');
    writeFileSync(join(ws, 'del.txt'), 'bye\n');
    const old = new Date(Date.now() - 60_000);
    utimesSync(join(ws, 'src', 'lib.rs'), old, old);
    const o = await sh(
      ws,
      [
        'cat same.txt',
        "sed -i 's/foo/bar/' src/lib.rs",
        'touch new.txt',
        'cp new.txt copy.txt',
        'rm del.txt',
        'echo out > ../outside.txt',
        'echo hidden > "$TARGET"',
      ].join(' && '),
      {},
      { env: { PATH: process.env.PATH ?? '/usr/bin:/bin', TARGET: 'expanded.txt' } },
    );
    expect(o.receipt.exitCode).toBe(0);
    expect(o.writtenPaths).toEqual(['copy.txt', 'new.txt', 'src/lib.rs']);
  });
});
