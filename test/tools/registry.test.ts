import { describe, expect, it } from 'vitest';
import { toolDeclarations, validateToolCall } from '../../core/tools/registry.js';
import { conditionalTools, toolCatalogue, toolImplementations, toolSpecs } from '../../activities/tools/index.js';

describe('tool declarations and validateToolCall (TD1, TD3, TD8)', () => {
  it('read/glob/grep are ReadOnly, replay Safe, ParallelSafe', () => {
    for (const name of ['read', 'glob', 'grep']) {
      const d = toolDeclarations[name]!;
      expect(d).toMatchObject({ name, effect: 'ReadOnly', replay: 'Safe', concurrency: 'ParallelSafe' });
    }
  });

  it('summaries', () => {
    expect(toolDeclarations.grep!.summarize({ pattern: 'TODO', path: 'src/' })).toBe('grep: TODO in src/');
    expect(toolDeclarations.read!.summarize({ path: 'src/index.ts' })).toBe('read: src/index.ts');
    expect(toolDeclarations.glob!.summarize({ pattern: '**/*.ts' })).toBe('glob: **/*.ts');
    const long = toolDeclarations.grep!.summarize({ pattern: 'x'.repeat(500) });
    expect(long.length).toBeLessThanOrEqual(120);
    expect(toolDeclarations.read!.summarize({ path: 'a\nb' })).toBe('read: a\\nb');
  });

  it('valid calls parse', () => {
    const v = validateToolCall('grep', '{"pattern":"TODO","include":"*.ts"}');
    expect(v).toMatchObject({ ok: true, args: { pattern: 'TODO', include: '*.ts' } });
    expect(validateToolCall('read', '{"path":"a","offset":3,"limit":10}')).toMatchObject({ ok: true });
  });

  it('malformed JSON → invalid_arguments with a model-correctable message', () => {
    const v = validateToolCall('read', '{"path": "a"');
    expect(v).toMatchObject({ ok: false, category: 'invalid_arguments' });
    if (!v.ok) expect(v.message).toMatch(/not valid JSON/);
  });

  it('wrong types / missing / unknown fields → invalid_arguments naming the field', () => {
    const wrong = validateToolCall('read', '{"path": 42}');
    expect(wrong).toMatchObject({ ok: false, category: 'invalid_arguments' });
    if (!wrong.ok) expect(wrong.message).toContain('- path:');
    const missing = validateToolCall('grep', '{}');
    expect(missing).toMatchObject({ ok: false, category: 'invalid_arguments' });
    if (!missing.ok) expect(missing.message).toContain('- pattern:');
    const frac = validateToolCall('read', '{"path":"a","offset":1.5}');
    expect(frac).toMatchObject({ ok: false, category: 'invalid_arguments' });
    if (!frac.ok) expect(frac.message).toContain('- offset:');
    const extra = validateToolCall('glob', '{"pattern":"*","recursive":true}');
    expect(extra).toMatchObject({ ok: false, category: 'invalid_arguments' });
    if (!extra.ok) expect(extra.message).toContain('recursive');
    expect(validateToolCall('glob', '[1,2]')).toMatchObject({ ok: false, category: 'invalid_arguments' });
    expect(validateToolCall('glob', '{"pattern":""}')).toMatchObject({ ok: false, category: 'invalid_arguments' });
  });

  it('unknown tool → unavailable (even with bad JSON); prototype names are not tools', () => {
    expect(validateToolCall('shellz', '{')).toMatchObject({ ok: false, category: 'unavailable' });
    expect(validateToolCall('toString', '{}')).toMatchObject({ ok: false, category: 'unavailable' });
  });

  it('empty argument string reads as {}', () => {
    expect(validateToolCall('grep', '')).toMatchObject({ ok: false, category: 'invalid_arguments' });
  });

  it('the activity registry carries declaration, description from .txt, JSON Schema, and run for activity tools', () => {
    for (const name of Object.keys(toolDeclarations)) {
      const t = toolCatalogue[name]!;
      expect(t.declaration).toBe(toolDeclarations[name]);
      expect(t.description.length).toBeGreaterThan(100);
      expect(t.jsonSchema).toMatchObject({ type: 'object', additionalProperties: false });
      expect(t.jsonSchema).not.toHaveProperty('$schema');
      if (toolDeclarations[name]!.delegation) expect(toolImplementations[name]).toBeUndefined();
      else expect(typeof toolImplementations[name]!.run).toBe('function');
    }
    expect(toolImplementations.grep!.jsonSchema).toMatchObject({ required: ['pattern'] });
    expect(toolSpecs().map((s) => s.name)).toEqual([
      'read',
      'glob',
      'grep',
      'write',
      'report_write',
      'apply_patch',
      'shell',
      'bg',
      'goal_get',
      'goal_update',
      'goal_request_input',
      'plan_get',
      'plan_update',
      'todo_get',
      'todo_update',
      'question',
      'question_async',
      'task',
      'job',
      'council_run',
      'tool_search',
      'webfetch',
      'web_search',
    ]);
    expect(Object.keys(toolCatalogue)).toEqual(Object.keys(toolDeclarations));
    // Delegating tools are a declared kind of their own: child workflows, no activity body (DC14).
    const delegating = Object.keys(toolDeclarations).filter((n) => toolDeclarations[n]!.delegation);
    expect(delegating).toEqual(['task', 'council_run']);
    expect(Object.keys(toolImplementations)).toEqual(
      Object.keys(toolDeclarations).filter((n) => !delegating.includes(n)),
    );
  });

  it('web_search: ReadOnly, Safe, ParallelSafe; a bounded batch; offered only with network.search (NW2, NW5)', () => {
    expect(toolDeclarations.web_search).toMatchObject({
      effect: 'ReadOnly',
      replay: 'Safe',
      concurrency: 'ParallelSafe',
    });
    expect(validateToolCall('web_search', '{"queries":["a","b"],"max_results":3}')).toMatchObject({ ok: true });
    for (const bad of [
      '{"queries":[]}',
      '{"queries":["  "]}',
      `{"queries":${JSON.stringify(Array.from({ length: 9 }, (_, i) => `q${i}`))}}`,
      `{"queries":["${'x'.repeat(401)}"]}`,
      '{"queries":["a"],"max_results":11}',
      '{"queries":["a"],"engine":"x"}',
    ])
      expect(validateToolCall('web_search', bad), bad).toMatchObject({ ok: false, category: 'invalid_arguments' });
    expect(toolDeclarations.web_search!.summarize({ queries: ['undici lookup', 'b', 'c'] })).toBe(
      'web_search: undici lookup (+2 more)',
    );
    const conditional = conditionalTools();
    expect([...conditional.keys()]).toEqual(['web_search']);
    const why = conditional.get('web_search')!;
    expect(why({ network: { allowPrivate: [] } } as never)).toMatch(/network\.search.*zuno\.json.*docs\/web\.md/);
    const search = { kind: 'searxng', url: 'https://s.example', ratePerMinute: 30, concurrency: 2 } as const;
    expect(why({ network: { allowPrivate: [], search } } as never)).toBeUndefined();
  });
});
