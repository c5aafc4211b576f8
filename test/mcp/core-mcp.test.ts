/**
 * The pure MCP rules (issue 30; MC1, MC4, MC6, MC7, MC9): wire names,
 * classification from annotations, exposure within the budget, the MCP
 * ceiling of roles and children, visibility under permission rules, the
 * MCP rule keys, and argument validation against a server's schema.
 */
import { describe, expect, it } from 'vitest';
import { mcpAccessFor } from '../../core/mcp/access.js';
import { classifyMcpTool } from '../../core/mcp/classify.js';
import { declarationOf } from '../../core/mcp/declaration.js';
import { decideExposure } from '../../core/mcp/exposure.js';
import { assignWireNames, mcpWireName, MAX_WIRE_NAME } from '../../core/mcp/naming.js';
import { mcpToolVisible } from '../../core/mcp/visibility.js';
import { evaluatePermission } from '../../core/permission/evaluate.js';
import { isPermissionRuleKey, ruleCoversTool } from '../../core/permission/rules.js';
import { agentRole } from '../../core/agents.js';
import { validateMcpCall } from '../../activities/mcp/validate-args.js';
import type { McpCatalogTool } from '../../activities/mcp/types.js';
import { toolSearchTool } from '../../activities/tools/tool-search.js';
import { withoutHtml } from '../../activities/mcp/errors.js';

describe('wire names (MC7)', () => {
  it('mcp__<server>__<tool>, normalised to provider-safe characters and at most 64 long', () => {
    expect(mcpWireName('everything', 'echo')).toBe('mcp__everything__echo');
    expect(mcpWireName('my server', 'list.files/all')).toBe('mcp__my_server__list_files_all');
    const long = mcpWireName('s'.repeat(40), 't'.repeat(40));
    expect(long.length).toBe(MAX_WIRE_NAME);
    expect(long).toMatch(/^mcp__s+__t+_[0-9a-f]{8}$/);
  });

  it('collisions (with another tool or a taken name) get distinct names that keep their source apart', () => {
    const names = assignWireNames(
      [
        { server: 'a', tool: 'x.y' },
        { server: 'a', tool: 'x_y' },
        { server: 'b', tool: 'read' },
      ],
      new Set(['mcp__b__read']),
    );
    expect(names[0]).toBe('mcp__a__x_y');
    expect(names[1]).toMatch(/^mcp__a__x_y_[0-9a-f]{8}$/);
    expect(names[2]).toMatch(/^mcp__b__read_[0-9a-f]{8}$/);
    expect(new Set(names).size).toBe(3);
  });
});

describe('classification from annotations (MC9)', () => {
  it.each([
    [{ readOnlyHint: true }, 'ReadOnly', 'Safe', 'ParallelSafe'],
    [{ readOnlyHint: true, openWorldHint: true }, 'ReadOnly', 'Safe', 'ParallelSafe'],
    [{ idempotentHint: true }, 'SideEffecting', 'Safe', 'Exclusive'],
    [{ readOnlyHint: false, destructiveHint: true }, 'SideEffecting', 'Never', 'Exclusive'],
    [undefined, 'SideEffecting', 'Never', 'Exclusive'],
  ] as const)('%j → %s, %s, %s', (annotations, effect, replay, concurrency) => {
    expect(classifyMcpTool('s', 't', annotations, 'trust')).toEqual({
      server: 's',
      tool: 't',
      effect,
      replay,
      concurrency,
    });
  });

  it('ignored annotations make every tool the strictest class', () => {
    expect(classifyMcpTool('s', 't', { readOnlyHint: true }, 'ignore')).toMatchObject({
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
    });
  });

  it('a planned MCP call runs under its facts; a built-in one under its declaration', () => {
    const facts = classifyMcpTool('everything', 'echo', { readOnlyHint: true }, 'trust');
    const decl = declarationOf({ name: 'mcp__everything__echo', mcp: facts })!;
    expect([decl.effect, decl.replay, decl.concurrency]).toEqual(['ReadOnly', 'Safe', 'ParallelSafe']);
    expect(decl.summarize({ message: 'hi' })).toBe('mcp__everything__echo: message=hi');
    expect(decl.summarize({})).toBe('mcp__everything__echo');
    expect(declarationOf({ name: 'read' })?.name).toBe('read');
    expect(declarationOf({ name: 'mcp__nowhere__x' })).toBeUndefined();
  });
});

describe('exposure (MC1, MC3, MC6)', () => {
  const server = (exposure: 'auto' | 'eager' | 'deferred', n: number, prefix: string) => ({
    exposure,
    tools: Array.from({ length: n }, (_, i) => ({ name: `${prefix}${i}`, bytes: 100 })),
  });

  it('auto servers are shown whole while they fit in what is left of the budget, in config order', () => {
    const e = decideExposure(
      [server('auto', 3, 'a'), server('auto', 3, 'b'), server('auto', 1, 'c')],
      { tools: 4, bytes: 10_000 },
      true,
      new Set(),
    );
    expect(e.direct).toEqual(['a0', 'a1', 'a2', 'c0']);
    expect(e.deferred).toEqual(['b0', 'b1', 'b2']);
  });

  it('the byte budget counts too; eager and deferred ignore it; the ledger exposes deferred tools', () => {
    const e = decideExposure(
      [server('auto', 2, 'a'), server('eager', 5, 'e'), server('deferred', 2, 'd')],
      { tools: 10, bytes: 150 },
      true,
      new Set(['d1']),
    );
    expect(e.direct).toEqual(['e0', 'e1', 'e2', 'e3', 'e4', 'd1']);
    expect(e.deferred).toEqual(['a0', 'a1', 'd0']);
  });

  it('without tool_search nothing is deferred', () => {
    const e = decideExposure([server('deferred', 2, 'd')], { tools: 0, bytes: 0 }, false, new Set());
    expect(e).toEqual({ direct: ['d0', 'd1'], deferred: [] });
  });
});

describe('ceiling and permissions (MC4, MC9; issue 30 item 4)', () => {
  it('roles that change things may call every MCP tool; read-only roles and their children only ReadOnly ones', () => {
    expect(mcpAccessFor(agentRole('build')!.tools)).toBe('all');
    expect(mcpAccessFor(agentRole('explore')!.tools)).toBe('read_only');
    expect(mcpAccessFor(agentRole('build')!.tools, 'read_only')).toBe('read_only');
  });

  it('rule keys mcp__server__tool and mcp__server__* are accepted and cover the right tools', () => {
    expect(isPermissionRuleKey('mcp__everything__echo')).toBe(true);
    expect(isPermissionRuleKey('mcp__everything__*')).toBe(true);
    expect(isPermissionRuleKey('mcp__bad')).toBe(false);
    expect(ruleCoversTool('mcp__everything__*', 'mcp__everything__echo')).toBe(true);
    expect(ruleCoversTool('mcp__everything__*', 'mcp__everythingelse__echo')).toBe(false);
    expect(ruleCoversTool('mcp__everything__echo', 'mcp__everything__echo_2')).toBe(false);
  });

  it('a whole-tool deny hides a tool; a pattern rule does not; read-only access hides side-effecting tools', () => {
    const deny = { mode: 'standard' as const, rules: [{ tool: 'mcp__everything__*', action: 'deny' as const }] };
    expect(mcpToolVisible('mcp__everything__echo', { effect: 'ReadOnly' }, 'all', deny)).toBe(false);
    expect(mcpToolVisible('mcp__other__echo', { effect: 'ReadOnly' }, 'all', deny)).toBe(true);
    const allowAfter = {
      mode: 'standard' as const,
      rules: [...deny.rules, { tool: 'mcp__everything__echo', action: 'allow' as const }],
    };
    expect(mcpToolVisible('mcp__everything__echo', { effect: 'ReadOnly' }, 'all', allowAfter)).toBe(true);
    expect(mcpToolVisible('mcp__x__y', { effect: 'SideEffecting' }, 'read_only', undefined)).toBe(false);
  });

  it('strict mode asks for a side-effecting MCP call and not for a read-only one (declared effect)', () => {
    const strict = { mode: 'strict' as const, rules: [] };
    const none = { kind: 'none' as const };
    const ask = evaluatePermission(
      strict,
      { tool: 'mcp__s__w', effect: 'SideEffecting', declared: true, subject: none },
      [],
    );
    expect(ask.action).toBe('ask');
    const allow = evaluatePermission(
      strict,
      { tool: 'mcp__s__r', effect: 'ReadOnly', declared: true, subject: none },
      [],
    );
    expect(allow.action).toBe('allow');
    // Undeclared (no facts): fail closed even in standard mode.
    const standard = { mode: 'standard' as const, rules: [] };
    expect(evaluatePermission(standard, { tool: 'mcp__s__r', effect: 'ReadOnly', subject: none }, []).action).toBe(
      'ask',
    );
  });
});

describe('argument validation against the server schema (TD8)', () => {
  const tool: McpCatalogTool = {
    name: 'mcp__s__add',
    server: 's',
    tool: 'add',
    description: 'adds',
    inputSchema: {
      $schema: 'https://json-schema.org/draft/2020-12/schema',
      type: 'object',
      properties: { a: { type: 'number' }, b: { type: 'number' } },
      required: ['a', 'b'],
    },
    facts: classifyMcpTool('s', 'add', { readOnlyHint: true }, 'trust'),
  };

  it('valid arguments pass with the MCP declaration', () => {
    const v = validateMcpCall(tool, '{"a":1,"b":2}');
    expect(v).toMatchObject({ ok: true, args: { a: 1, b: 2 } });
  });

  it.each([
    ['{"a":1}', /- b: required/],
    ['{"a":"x","b":2}', /- a: must be number/],
    ['[1]', /must be a JSON object/],
    ['{nope', /not valid JSON/],
  ])('%s is blocked invalid_arguments naming the problem', (args, message) => {
    const v = validateMcpCall(tool, args);
    expect(v.ok).toBe(false);
    if (!v.ok) {
      expect(v.category).toBe('invalid_arguments');
      expect(v.message).toMatch(message);
    }
  });
});

describe('tool_search matching (MC2)', () => {
  const entry = (tool: string, summary: string) => ({
    name: `mcp__everything__${tool}`,
    server: 'everything',
    tool,
    summary,
    facts: classifyMcpTool('everything', tool, { readOnlyHint: true }, 'trust'),
    deferred: true,
  });
  const entries = [
    entry('get-sum', 'Adds two numbers'),
    entry('get-env', 'Returns the environment'),
    entry('echo', 'Echoes back the input'),
  ];
  const exposedBy = async (query: string) => {
    const exposed: string[][] = [];
    const mcp = {
      searchable: async () => entries,
      expose: async (_q: string, tools: { name: string }[]) => {
        exposed.push(tools.map((t) => t.name));
        return exposed.length;
      },
      call: async () => {
        throw new Error('not called');
      },
    };
    const result = await toolSearchTool.run(
      { query },
      { workspace: '/', sessionId: 's', rowId: 'r', callId: 'c', mcp },
    );
    return { result, exposed };
  };

  it('an exact tool name finds that tool alone', async () => {
    const { result, exposed } = await exposedBy('get-sum');
    expect(exposed).toEqual([['mcp__everything__get-sum']]);
    expect(result.output).toContain('1 MCP tool(s) match');
  });

  it('words match names and summaries, best first; nothing found says which servers exist', async () => {
    expect((await exposedBy('environment get')).exposed).toEqual([
      ['mcp__everything__get-env', 'mcp__everything__get-sum'],
    ]);
    const none = await exposedBy('weather');
    expect(none.exposed).toEqual([]);
    expect(none.result.output).toContain('No MCP tool matches "weather" (servers: everything)');
  });
});

describe('MCP errors in the server’s own words', () => {
  it('an HTTP error page is reduced to its title or first words', () => {
    const page =
      'Error POSTing to endpoint: <!DOCTYPE html><html><head><meta charset="utf-8"><title>Error</title></head><body><pre>Cannot POST /nope</pre></body></html>';
    expect(withoutHtml(page)).toBe('Error POSTing to endpoint: (an HTML page: Error)');
    expect(withoutHtml('<html><body><pre>Cannot POST /nope</pre></body></html>')).toBe(
      '(an HTML page: Cannot POST /nope)',
    );
    expect(withoutHtml('plain text')).toBe('plain text');
  });
});
