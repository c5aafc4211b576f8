import { describe, expect, it } from 'vitest';
import { shellArgs, shellDeclaration, SHELL_MAX_TIMEOUT_MS } from '../../../core/tools/shell.js';

describe('shell declaration (TD1)', () => {
  it('is SideEffecting, replay Never, Exclusive', () => {
    expect(shellDeclaration).toMatchObject({
      name: 'shell',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
    });
  });

  it('summarizes the first line of the command, at most 100 characters', () => {
    expect(shellDeclaration.summarize({ command: 'npm test\necho done' })).toBe('shell: npm test');
    const long = shellDeclaration.summarize({ command: 'x'.repeat(300) });
    expect(long.startsWith('shell: ')).toBe(true);
    expect(long.length).toBe('shell: '.length + 100);
    expect(long.endsWith('…')).toBe(true);
  });

  it('validates arguments strictly', () => {
    expect(
      shellArgs.safeParse({
        command: 'ls',
        exitPolicy: 'all',
        timeoutMs: 1000,
        workdir: 'src',
        accept_large_output: true,
      }).success,
    ).toBe(true);
    expect(shellArgs.safeParse({ command: '' }).success).toBe(false);
    expect(shellArgs.safeParse({ command: 'ls', exitPolicy: 'first' }).success).toBe(false);
    expect(shellArgs.safeParse({ command: 'ls', timeoutMs: SHELL_MAX_TIMEOUT_MS + 1 }).success).toBe(false);
    expect(shellArgs.safeParse({ command: 'ls', shell: 'zsh' }).success).toBe(false);
  });
});
