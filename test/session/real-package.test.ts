import { execFileSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect, inject, it } from 'vitest';
import { makeHome, runZuno, tempDir, writeJson } from '../cli/helpers.js';

/**
 * The main job on real input (issue 3): a real open-source package fetched
 * with `npm pack` at test time (minimist 1.2.8, with its own tape tests), one
 * function broken, and `zuno run` with a script in which the model greps,
 * reads, patches and runs the package's own tests through `shell`. The tools,
 * the workflow, the files and the test run are all real; only the model's
 * replies are scripted.
 */
it('fixes a broken function in a real npm package and proves it with the package tests', async () => {
  const root = tempDir('zuno-real-');
  execFileSync('npm', ['pack', 'minimist@1.2.8', '--silent'], { cwd: root, stdio: 'ignore' });
  execFileSync('tar', ['xzf', 'minimist-1.2.8.tgz'], { cwd: root });
  const pkg = join(root, 'package');
  // The package's test runner, installed beside the package (its other dev tools are not needed).
  execFileSync(
    'npm',
    ['install', '--prefix', join(root, 'tools'), '--no-audit', '--no-fund', '--ignore-scripts', 'tape@5.6.3'],
    { stdio: 'ignore' },
  );
  const index = join(pkg, 'index.js');
  const original = readFileSync(index, 'utf8');
  const good = 'if ((/^0x[0-9a-f]+$/i).test(x)) { return true; }';
  expect(original).toContain(good);
  writeFileSync(index, original.replace(good, 'if ((/^0x[0-9]+$/i).test(x)) { return true; }'));
  const tools = join(root, 'tools', 'node_modules');
  const check = `NODE_PATH=${tools} node ${join(tools, 'tape', 'bin', 'tape')} 'test/*.js'`;
  expect(() => execFileSync('bash', ['-c', check], { cwd: pkg, stdio: 'ignore' })).toThrow();

  const patch = [
    '*** Begin Patch',
    '*** Update File: index.js',
    '@@ function isNumber(x) {',
    '-\tif ((/^0x[0-9]+$/i).test(x)) { return true; }',
    `+\t${good}`,
    '*** End Patch',
  ].join('\n');
  const { home } = makeHome({ address: inject('temporalAddress') });
  const script = writeJson(root, 'script.json', {
    replies: [
      { text: 'Running the tests first.', toolCalls: [{ name: 'shell', arguments: { command: check } }] },
      { toolCalls: [{ name: 'grep', arguments: { pattern: 'function isNumber', include: '*.js' } }] },
      { toolCalls: [{ name: 'read', arguments: { path: 'index.js', offset: 10, limit: 10 } }] },
      { text: 'The hex check lost a-f.', toolCalls: [{ name: 'apply_patch', arguments: { patch } }] },
      { toolCalls: [{ name: 'shell', arguments: { command: check } }] },
      { text: 'Fixed isNumber in index.js: hex numbers parse again and the package tests pass.' },
    ],
  });
  const r = await runZuno(['run', 'the num tests fail; fix it', '--dir', pkg, '--script', script, '--json'], {
    home,
    env: { TEMPORAL_ADDRESS: inject('temporalAddress') },
    timeoutMs: 120_000,
  });
  expect(r.code, r.stderr).toBe(0);
  expect(readFileSync(index, 'utf8')).toBe(original);
  execFileSync('bash', ['-c', check], { cwd: pkg, stdio: 'ignore' });

  const last = JSON.parse(r.stdout.trim().split('\n').at(-1)!);
  expect(last.type).toBe('session.completed');
  const shown = await runZuno(['session', 'show', last.sessionId], { home });
  expect(shown.code).toBe(0);
  const toolLines = shown.stdout.split('\n').filter((l) => l.startsWith('tool '));
  // The first test run fails (exit 1): it reads failed beside its failed receipt, never ok.
  expect(toolLines.map((l) => l.replace(/^tool (\S+?)(?: \(background\))?: .* → /, '$1: '))).toEqual([
    'shell: failed (exit 1)',
    'grep: ok',
    'read: ok',
    'apply_patch: ok',
    'shell: ok',
  ]);
  expect(toolLines[3]).toBe('tool apply_patch: index.js → ok');
  const receipts = shown.stdout.split('\n').filter((l) => l.trim().startsWith('receipt: '));
  expect(receipts).toEqual([
    '  receipt: failed, exit 1, authority authoritative',
    '  receipt: passed, exit 0, authority authoritative',
  ]);
  // The patch reads as the diff it applied, not as its JSON argument.
  expect(shown.stdout).toContain(['  --- a/index.js', '  +++ b/index.js'].join('\n'));
  expect(shown.stdout).toContain(['  -\tif ((/^0x[0-9]+$/i).test(x)) { return true; }', `  +\t${good}`].join('\n'));
  expect(shown.stdout).not.toContain('"patch"');
}, 180_000);
