import { chmodSync, mkdirSync, symlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { findBinary, findBinaryDetailed } from '../../activities/infra/tool-binaries.js';
import { tempDir, writeScript } from './helpers.js';

describe('findBinary (pure filesystem discovery)', () => {
  it('follows the order explicit → env → <projectRoot>/.tools/bin → PATH', () => {
    const root = tempDir();
    const explicit = writeScript(join(root, 'explicit', 'rg'), 'echo explicit');
    const fromEnv = writeScript(join(root, 'env', 'rg'), 'echo env');
    const project = writeScript(join(root, '.tools', 'bin', 'rg'), 'echo project');
    const onPath = writeScript(join(root, 'pathdir', 'rg'), 'echo path');
    const env = { ZUNO_RG_BIN: fromEnv, PATH: `/nonexistent:${join(root, 'pathdir')}` };

    expect(findBinary('rg', { explicit, projectRoot: root, env })).toBe(explicit);
    expect(findBinary('rg', { projectRoot: root, env })).toBe(fromEnv);
    expect(findBinary('rg', { projectRoot: root, env: { PATH: env.PATH } })).toBe(project);
    const other = tempDir();
    expect(findBinary('rg', { projectRoot: other, env: { PATH: env.PATH } })).toBe(onPath);
    expect(findBinary('rg', { projectRoot: other, env: { PATH: '' } })).toBeNull();
  });

  it('uses the per-binary env variable names', () => {
    const root = tempDir();
    const t = writeScript(join(root, 'a', 'temporal'), 'true');
    const ts = writeScript(join(root, 'b', 'temporal-test-server'), 'true');
    const env = { ZUNO_TEMPORAL_BIN: t, ZUNO_TEMPORAL_TEST_SERVER_BIN: ts, PATH: '' };
    expect(findBinary('temporal', { projectRoot: root, env })).toBe(t);
    expect(findBinary('temporal-test-server', { projectRoot: root, env })).toBe(ts);
    expect(findBinary('rg', { projectRoot: root, env })).toBeNull();
  });

  it('a configured location is authoritative: a wrong explicit/env path does not fall back', () => {
    const root = tempDir();
    writeScript(join(root, '.tools', 'bin', 'rg'), 'true');
    const r = findBinaryDetailed('rg', { explicit: join(root, 'missing-rg'), projectRoot: root, env: { PATH: '' } });
    expect(r.path).toBeNull();
    expect(r.checked).toEqual([{ source: 'explicit', path: join(root, 'missing-rg'), ok: false, reason: 'missing' }]);
    expect(findBinary('rg', { projectRoot: root, env: { ZUNO_RG_BIN: join(root, 'nope'), PATH: '' } })).toBeNull();
  });

  it('rejects non-executable files and directories, follows symlinks', () => {
    const root = tempDir();
    const script = writeScript(join(root, 'real', 'rg'), 'true');
    mkdirSync(join(root, 'dir', 'rg'), { recursive: true });
    const plain = join(root, 'plain-rg');
    writeFileSync(plain, 'x');
    chmodSync(plain, 0o644);
    expect(findBinaryDetailed('rg', { explicit: plain, projectRoot: root, env: {} }).checked[0]?.reason).toBe(
      'not executable',
    );
    expect(
      findBinaryDetailed('rg', { explicit: join(root, 'dir', 'rg'), projectRoot: root, env: {} }).checked[0]?.reason,
    ).toBe('not a regular file');
    const link = join(root, 'link-rg');
    symlinkSync(script, link);
    expect(findBinary('rg', { explicit: link, projectRoot: root, env: {} })).toBe(link);
  });
});
