import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { AGENT_ROLES } from '../../core/agents.js';
import { offersReadOnly, ruleKey, rulesInForce, type ExecutionRule } from '../../core/prompt/execution.js';
import { renderSeatContext, SEAT_PLACEHOLDERS } from '../../core/prompt/seat.js';
import { REPORT_FORMAT } from '../../core/council/report.js';
import { declaredTools } from '../../core/tools/registry.js';
import { ROOT } from '../helpers/dev-server.js';

/**
 * The prompt texts as files (issue 32, docs/prompts.md): RT8's rule that
 * guidance never names a capability the session lacks holds by
 * construction — only `prompts/execution/<tools>.md` may name tools, and
 * only the tools its name keys it by — and the templates use only the
 * placeholders the code fills.
 */
const PROMPTS = join(ROOT, 'prompts');
const TOOLS = Object.keys(declaredTools);
const read = (rel: string) => readFileSync(join(PROMPTS, rel), 'utf8');
/** Declared tool names a text names in backticks (`apply_patch`). */
const named = (text: string) => TOOLS.filter((t) => text.includes(`\`${t}\``));
const files = (dir: string) => readdirSync(join(PROMPTS, dir)).filter((f) => f.endsWith('.md'));

describe('prompt files', () => {
  it('every execution rule is keyed by declared tools and names only those', () => {
    const rules = files('execution');
    expect(rules).toContain('always.md');
    for (const f of rules) {
      const key = ruleKey(f);
      for (const t of key) expect(TOOLS, `${f} keys an undeclared tool ${t}`).toContain(t);
      const extra = named(read(`execution/${f}`)).filter((t) => !key.includes(t));
      expect(extra, `prompts/execution/${f} names tools outside its key`).toEqual([]);
    }
  });

  it('runtime.reports names only report_write, the tool it is present with (FT8)', () => {
    expect(named(read('reports.md'))).toEqual(['report_write']);
  });

  it('no other prompt text names a tool (a session may lack any of them)', () => {
    const rels = [
      'base.md',
      'goal.md',
      'read-only.md',
      'read-only-shell.md',
      'seat.md',
      ...files('family').map((f) => `family/${f}`),
      ...files('roles').map((f) => `roles/${f}`),
    ];
    for (const rel of rels) expect(named(read(rel)), `prompts/${rel}`).toEqual([]);
  });

  it('every role of the roster has its text, and every provider family its file', () => {
    for (const role of Object.keys(AGENT_ROLES)) expect(read(`roles/${role}.md`).trim()).not.toBe('');
    expect(files('family').sort()).toEqual(['anthropic-messages.md', 'chat-completions.md', 'responses.md']);
    expect(read('base.md').trim()).not.toBe('');
  });

  it('the seat template uses exactly the placeholders the code fills', () => {
    const template = read('seat.md');
    const used = [...template.matchAll(/\{\{(\w+)\}\}/g)].map((m) => m[1]);
    expect([...new Set(used)].sort()).toEqual([...SEAT_PLACEHOLDERS].sort());
    const filled = renderSeatContext(template, { index: 2, of: 3, attempt: 1, maxAttempts: 2, deadlineMs: 0 });
    expect(filled).not.toContain('{{');
    expect(filled).toContain('1970-01-01T00:00:00.000Z');
    expect(filled).toContain(REPORT_FORMAT);
  });
});

describe('execution rules in force (RT8)', () => {
  const rule = (file: string, text = file): ExecutionRule => ({ tools: ruleKey(file), file, text });
  const rules = [rule('shell.md'), rule('always.md'), rule('grep+shell.md'), rule('read.md'), rule('write.md', ' ')];

  it('a rule needs every tool of its key; always first, then in the order the tools are offered', () => {
    expect(rulesInForce(rules, ['read', 'grep', 'shell']).map((r) => r.file)).toEqual([
      'always.md',
      'read.md',
      'grep+shell.md',
      'shell.md',
    ]);
    expect(rulesInForce(rules, ['grep', 'read']).map((r) => r.file)).toEqual(['always.md', 'read.md']);
    expect(rulesInForce(rules, ['write']).map((r) => r.file)).toEqual(['always.md']); // an empty text is skipped
  });

  it('a session is read-only when it is offered nothing that writes or runs commands', () => {
    expect(offersReadOnly(['read', 'grep', 'plan_update'])).toBe(true);
    expect(offersReadOnly(['read', 'bg'])).toBe(false);
    expect(offersReadOnly(['apply_patch'])).toBe(false);
  });
});
