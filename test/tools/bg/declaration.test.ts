import { describe, expect, it } from 'vitest';
import { toolImplementations } from '../../../activities/tools/index.js';
import { bgArgs, bgDeclaration, bgEffect } from '../../../core/tools/bg.js';
import { toolDeclarations, validateToolCall } from '../../../core/tools/registry.js';
import {
  shellArgs,
  shellDeclaration,
  shellTimeoutMs,
  SHELL_BACKGROUND_DEFAULT_TIMEOUT_MS,
  SHELL_BACKGROUND_MAX_TIMEOUT_MS,
  SHELL_DEFAULT_TIMEOUT_MS,
  SHELL_MAX_TIMEOUT_MS,
} from '../../../core/tools/shell.js';

describe('bg declaration (TD1, BG1)', () => {
  it('replay Safe, ParallelSafe; cancel is SideEffecting, the reads ReadOnly; unknown actions get the strictest class', () => {
    expect(toolDeclarations.bg).toBe(bgDeclaration);
    expect(bgDeclaration).toMatchObject({
      name: 'bg',
      replay: 'Safe',
      concurrency: 'ParallelSafe',
      effect: 'SideEffecting',
    });
    for (const action of ['list', 'output', 'wait', 'artifact'] as const) expect(bgEffect({ action })).toBe('ReadOnly');
    expect(bgDeclaration.effectOf({ action: 'cancel', taskID: 'bg_1_0_0' })).toBe('SideEffecting');
  });

  it('validates per action; limit is accepted above the maximum (clamped later); wait ≤ 60 s', () => {
    expect(validateToolCall('bg', '{"action":"output","taskID":"bg_1_0_0","limit":999999}')).toMatchObject({
      ok: true,
    });
    expect(validateToolCall('bg', '{"action":"list"}')).toMatchObject({ ok: true });
    expect(validateToolCall('bg', '{"action":"artifact","outputPath":"x","cursor":0}')).toMatchObject({ ok: true });
    for (const bad of [
      '{"action":"list","taskID":"bg_1_0_0"}',
      '{"action":"output"}',
      '{"action":"output","taskID":"../x"}',
      '{"action":"output","taskID":"bg_1","cursor":-1}',
      '{"action":"output","taskID":"bg_1","limit":0}',
      '{"action":"wait","taskID":"bg_1","timeoutMs":60001}',
      '{"action":"cancel","taskID":"bg_1","cursor":0}',
      '{"action":"artifact"}',
      '{"action":"nope"}',
      '{}',
    ])
      expect({ bad, ok: validateToolCall('bg', bad).ok }).toEqual({ bad, ok: false });
    expect(bgArgs.safeParse({ action: 'wait', taskID: 'bg_1', timeoutMs: 60_000 }).success).toBe(true);
  });

  it('summaries', () => {
    expect(bgDeclaration.summarize({ action: 'output', taskID: 'bg_1_0_0' })).toBe('bg: output bg_1_0_0');
    expect(bgDeclaration.summarize({ action: 'wait', taskID: 'bg_1_0_0', cursor: 40 })).toBe('bg: wait bg_1_0_0 @40');
    expect(bgDeclaration.summarize({ action: 'list' })).toBe('bg: list');
    expect(bgDeclaration.summarize({ action: 'cancel', taskID: 'bg_2_1_0' })).toBe('bg: cancel bg_2_1_0');
    expect(bgDeclaration.summarize({ action: 'artifact', outputPath: '/w/.zuno/artifacts/shell-a-b.out' })).toBe(
      'bg: artifact shell-a-b.out',
    );
  });

  it('the provider schema is one flat object with the action enum; the description comes from bg.txt', () => {
    const t = toolImplementations.bg!;
    expect(t.jsonSchema).toMatchObject({
      type: 'object',
      additionalProperties: false,
      required: ['action'],
      properties: { action: { enum: ['list', 'output', 'wait', 'cancel', 'artifact'] } },
    });
    expect(t.description).toContain('nextCursor');
  });
});

describe('shell background arguments (SH9, BG5)', () => {
  it('background commands may run up to 24 h (default 1 h); foreground stays at 10 min with a clear message', () => {
    expect(
      shellArgs.safeParse({ command: 'x', background: true, timeoutMs: SHELL_BACKGROUND_MAX_TIMEOUT_MS }).success,
    ).toBe(true);
    expect(
      shellArgs.safeParse({ command: 'x', background: true, timeoutMs: SHELL_BACKGROUND_MAX_TIMEOUT_MS + 1 }).success,
    ).toBe(false);
    const fg = validateToolCall('shell', JSON.stringify({ command: 'x', timeoutMs: SHELL_MAX_TIMEOUT_MS + 1 }));
    expect(fg.ok).toBe(false);
    if (!fg.ok) expect(fg.message).toContain('- timeoutMs: A foreground command may run at most 600000 ms');
    expect(shellTimeoutMs({ background: true })).toBe(SHELL_BACKGROUND_DEFAULT_TIMEOUT_MS);
    expect(shellTimeoutMs({})).toBe(SHELL_DEFAULT_TIMEOUT_MS);
    expect(shellArgs.safeParse({ command: 'x', backgroundPurpose: 'remoteObserver', background: true }).success).toBe(
      true,
    );
    expect(shellArgs.safeParse({ command: 'x', backgroundPurpose: 'other' }).success).toBe(false);
    expect(shellDeclaration.summarize({ command: 'npm run dev', background: true })).toBe(
      'shell (background): npm run dev',
    );
  });
});
