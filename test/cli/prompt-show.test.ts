import { execFileSync } from 'node:child_process';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { declaredTools } from '../../core/tools/registry.js';
import type { PromptShowReport } from '../../client/prompt-view.js';
import { expectTypedFailure, makeHome, runZuno, tempDir, writeJson } from './helpers.js';

/**
 * `zuno prompt show` (issue 32 item 3): the segments a session's first
 * request would carry, offline — no Temporal server is reachable here — from
 * the workspace's zuno.json, rule files and git state.
 */
const OFFLINE = { TEMPORAL_ADDRESS: '127.0.0.1:1' };

function repo(): string {
  const ws = tempDir('zuno-prompt-show-');
  execFileSync('git', ['init', '-q', '-b', 'trunk'], { cwd: ws });
  writeFileSync(join(ws, 'AGENTS.md'), 'Run `npm test` before you answer.\n');
  writeFileSync(join(ws, 'notes.txt'), 'untracked\n');
  return ws;
}

async function show(args: string[], ws: string): Promise<PromptShowReport> {
  const { home } = makeHome();
  const r = await runZuno(['prompt', 'show', '--dir', ws, '--json', ...args], { home, env: OFFLINE });
  expect(r.code, r.stderr).toBe(0);
  return JSON.parse(r.stdout) as PromptShowReport;
}

const ids = (r: PromptShowReport) => r.segments.map((s) => s.id);
const text = (r: PromptShowReport, id: string) => r.segments.find((s) => s.id === id)?.text ?? '';
const notOffered = (r: PromptShowReport) => Object.keys(declaredTools).filter((t) => !r.tools.includes(t));

describe('zuno prompt show', () => {
  it('build: every segment with its source, the rule files and the git state of the workspace, offline', async () => {
    const ws = repo();
    const { home } = makeHome();
    const r = await runZuno(['prompt', 'show', '--dir', ws], { home, env: OFFLINE });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toMatch(/^System prompt of a build session in /);
    expect(r.stdout).toMatch(
      /chat-completions family \(no model configured\) · 7 segments · [\d,]+ chars · ≈ [\d,]+ tokens/,
    );
    expect(r.stdout).toContain('── 1. system.base · prompts/base.md · ');
    expect(r.stdout).toContain('Run `npm test` before you answer.');
    const j = await show([], ws);
    expect(ids(j)).toEqual([
      'system.base',
      'system.family',
      'system.agent',
      'runtime.execution',
      'runtime.reports',
      'runtime.environment',
      'instructions.rules',
    ]);
    expect(j.segments.find((s) => s.id === 'instructions.rules')!.source).toMatch(/^rule files: .*AGENTS\.md$/);
    expect(text(j, 'runtime.environment')).toContain('- Git: branch trunk, 2 changed or untracked files');
    for (const s of j.segments) expect(s.chars).toBe(s.text.length);
  });

  it('plan, a Goal and a Council reviewer each get their own segments; no rule names a tool not offered', async () => {
    const ws = repo();
    const plan = await show(['--agent', 'plan'], ws);
    expect(ids(plan)).toContain('runtime.read_only');
    expect(plan.tools).not.toContain('shell');
    const goal = await show(['--goal', 'Make CI green'], ws);
    expect(ids(goal).slice(-2)).toEqual(['system.goal', 'runtime.goal']);
    expect(text(goal, 'runtime.goal')).toContain('Make CI green');
    expect(goal.tools).toContain('goal_update');
    expect(ids(plan)).not.toContain('runtime.reports'); // FT8: only with report_write
    const seat = await show(['--agent', 'security-review'], ws);
    expect(ids(seat)).toContain('runtime.task_context');
    expect(text(seat, 'runtime.task_context')).toMatch(/seat 1 of 3/);
    for (const r of [plan, goal, seat])
      for (const t of notOffered(r)) expect(text(r, 'runtime.execution')).not.toContain(`\`${t}\``);
  });

  it('places the text for the model family zuno.json names, and refuses a bad role or model naming it', async () => {
    const ws = repo();
    writeJson(ws, 'zuno.json', { model: 'anthropic/claude-sonnet-4' });
    const r = await show([], ws);
    expect(r.surface).toBe('anthropic-messages');
    expect(ids(r)).not.toContain('runtime.read_only');
    expect(r.segments.find((s) => s.id === 'system.family')?.source).toBe('prompts/family/anthropic-messages.md');
    const { home } = makeHome();
    const bad = await runZuno(['prompt', 'show', '--dir', ws, '--agent', 'wizard'], { home, env: OFFLINE });
    expect(expectTypedFailure(bad, 'agent_invalid')).toContain('unknown agent "wizard"');
    const model = await runZuno(['prompt', 'show', '--dir', ws, '--model', 'nope'], { home, env: OFFLINE });
    expect(expectTypedFailure(model, 'model_invalid')).toContain('provider/model');
    const goalPlan = await runZuno(['prompt', 'show', '--dir', ws, '--goal', 'x', '--agent', 'plan'], {
      home,
      env: OFFLINE,
    });
    expect(expectTypedFailure(goalPlan, 'options_conflict')).toContain('drop --agent plan');
    // Commands in a read-only sandbox: the segment states that constraint, not a read-only disk (FT8).
    writeJson(ws, 'zuno.json', { model: 'anthropic/claude-sonnet-4', sandbox: { mode: 'read-only' } });
    const confined = await show([], ws);
    expect(confined.segments.find((s) => s.id === 'runtime.read_only')?.source).toBe('prompts/read-only-shell.md');
    expect(text(confined, 'runtime.environment')).toContain('- Sandbox: read-only (commands may not write files)');
    expect(confined.model).toBe('anthropic/claude-sonnet-4');
  });

  it('says which rule file is over the budget and skipped whole, as a turn would (SE27)', async () => {
    const ws = repo();
    writeFileSync(join(ws, 'AGENTS.md'), `${'Keep it short. '.repeat(5_000)}\n`); // 75 000 bytes > 64 000
    const { home } = makeHome();
    const r = await runZuno(['prompt', 'show', '--dir', ws, '--json'], { home, env: OFFLINE });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/\(warning: rule file .*AGENTS\.md not in force: 75001 bytes do not fit the 64000 bytes/);
    const j = JSON.parse(r.stdout) as PromptShowReport;
    expect(j.segments.map((s) => s.id)).not.toContain('instructions.rules');
    expect(j.notInForce).toEqual([expect.objectContaining({ bytes: 75_001, budget: 64_000 })]);
    expect(j.model).toBeNull();
  });
});
