/**
 * zuno.json `mcp` (issue 30 item 1; docs/mcp.md): a valid config resolves
 * into the session's McpSessionConfig, every bad key is named, and MCP
 * permission rule keys are accepted or refused. Server-free.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { mcpServerSpecs, mcpTemplateVariables, sessionMcp } from '../../client/mcp-config.js';
import type { TemporalContext } from '../../client/context.js';
import { shareMcpVariables } from '../../client/serving.js';
import { sessionMetaFor } from '../../client/session-meta.js';
import { resolveModel } from '../../client/zuno-config.js';
import type { SessionMeta } from '../../core/session/meta.js';
import { readCredentials } from '../../activities/infra/credentials.js';
import { AGENT_ROLES } from '../../core/agents.js';
import { templateRefs } from '../../core/mcp/template.js';
import { DEFAULT_MCP_BUDGET, type McpSessionConfig } from '../../core/mcp/types.js';
import { errorOf, loadConfig as load } from '../helpers/config.js';

const everything = { command: 'npx', args: ['-y', '@modelcontextprotocol/server-everything'] };

/** The config error message of `config`; fails when it loads. */
function messageOf(config: unknown): string {
  const e = errorOf(() => load(config));
  expect(e.code).toBe('config_invalid');
  return e.message;
}

describe('zuno.json mcp resolves into the session config', () => {
  it('a full config: defaults, per-server overrides, templates kept, relative cwd against the workspace', () => {
    const cfg = load({
      mcp: {
        exposure: 'deferred',
        tool_search: false,
        budget: { tools: 10, bytes: 2048 },
        servers: {
          everything: {
            ...everything,
            env: { LOG: '1', API_KEY: '${EVERYTHING_KEY}' },
            cwd: 'tools/',
            startup_timeout_ms: 5_000,
            call_timeout_ms: 9_000,
            exposure: 'eager',
            annotations: 'ignore',
            roots: true,
          },
          tracker: {
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer ${TRACKER_TOKEN}', 'X-Team': 'core' },
          },
          off: { command: 'never-started', enabled: false },
        },
      },
      concurrency: { mcp_connections: 3 },
    });
    const expected: McpSessionConfig = {
      servers: [
        {
          name: 'everything',
          transport: {
            kind: 'stdio',
            command: 'npx',
            args: ['-y', '@modelcontextprotocol/server-everything'],
            env: { LOG: '1', API_KEY: '${EVERYTHING_KEY}' },
            cwd: '/ws/tools',
          },
          startupTimeoutMs: 5_000,
          callTimeoutMs: 9_000,
          exposure: 'eager',
          annotations: 'ignore',
          roots: true,
        },
        {
          name: 'tracker',
          transport: {
            kind: 'http',
            url: 'https://mcp.example.com/mcp',
            headers: { Authorization: 'Bearer ${TRACKER_TOKEN}', 'X-Team': 'core' },
          },
          startupTimeoutMs: 30_000,
          callTimeoutMs: 120_000,
          exposure: 'deferred',
          annotations: 'trust',
          roots: false,
        },
      ],
      toolSearch: false,
      budget: { tools: 10, bytes: 2048 },
      connections: 3,
      access: 'all',
    };
    expect(sessionMcp(cfg, '/ws')).toEqual(expected);
    // The disabled server is configured (listed by `zuno mcp list`), never in a session.
    expect(mcpServerSpecs(cfg.mcp, '/ws').map((s) => [s.name, s.enabled])).toEqual([
      ['everything', true],
      ['tracker', true],
      ['off', false],
    ]);
    expect(mcpTemplateVariables(expected)).toEqual(['EVERYTHING_KEY', 'TRACKER_TOKEN']);
  });

  it('defaults: auto exposure, tool_search on, the default budget, 8 connections; no enabled server → no mcp', () => {
    const cfg = load({ mcp: { servers: { everything } } });
    const mcp = sessionMcp(cfg, '/ws')!;
    expect(mcp).toMatchObject({ toolSearch: true, budget: DEFAULT_MCP_BUDGET, connections: 8, access: 'all' });
    expect(mcp.servers[0]).toMatchObject({ exposure: 'auto', annotations: 'trust' });
    expect(mcp.servers[0]!.transport).toEqual({ kind: 'stdio', ...everything, env: {} });
    expect(DEFAULT_MCP_BUDGET).toEqual({ tools: 40, bytes: 49_152 });
    expect(sessionMcp(load({}), '/ws')).toBeUndefined();
    expect(sessionMcp(load({ mcp: { servers: { everything: { ...everything, enabled: false } } } }), '/ws')).toBe(
      undefined,
    );
  });

  it('cwd: absolute kept, ~/ under the home directory; access follows the role (MC4)', () => {
    const cfg = load({ mcp: { servers: { a: { command: 'x', cwd: '/abs/dir' }, b: { command: 'x', cwd: '~/srv' } } } });
    const mcp = sessionMcp(cfg, '/ws', AGENT_ROLES.plan!.tools)!;
    expect(mcp.servers.map((s) => (s.transport.kind === 'stdio' ? s.transport.cwd : null))).toEqual([
      '/abs/dir',
      join(homedir(), 'srv'),
    ]);
    expect(mcp.access).toBe('read_only');
    expect(sessionMcp(cfg, '/ws', AGENT_ROLES.build!.tools)!.access).toBe('all');
  });

  it('templates: the ${NAME} references are what the worker resolves; a lone $ is literal', () => {
    expect(templateRefs('Bearer ${A} ${B_2} ${A} $x')).toEqual(['A', 'B_2']);
    expect(load({ mcp: { servers: { e: { command: 'x', env: { PRICE: '$5' } } } } }).mcp.servers.e!.env).toEqual({
      PRICE: '$5',
    });
  });
});

describe('zuno.json mcp errors name the key', () => {
  it('unknown keys, at every level', () => {
    expect(messageOf({ mcp: { server: {} } })).toContain('mcp.server: unknown key');
    expect(messageOf({ mcp: { servers: { everything: { ...everything, comand: 'x' } } } })).toContain(
      'mcp.servers.everything.comand: unknown key',
    );
    expect(messageOf({ mcp: { budget: { tool: 3 } } })).toContain('mcp.budget.tool: unknown key');
    expect(messageOf({ concurrency: { mcp: 3 } })).toContain('concurrency.mcp: unknown key');
  });

  it('a server without command or url, or with both, is named', () => {
    expect(messageOf({ mcp: { servers: { everything: { args: ['x'] } } } })).toContain(
      'mcp.servers.everything: needs "command" (a stdio server) or "url" (a streamable HTTP server)',
    );
    expect(
      messageOf({ mcp: { servers: { tracker: { command: 'x', url: 'https://mcp.example.com/mcp' } } } }),
    ).toContain('mcp.servers.tracker: has both "command" (stdio) and "url"');
    expect(messageOf({ mcp: { servers: { t: { url: 'https://h/mcp', args: ['x'] } } } })).toContain(
      'mcp.servers.t.args: only a stdio server',
    );
    expect(messageOf({ mcp: { servers: { t: { command: 'x', headers: { A: 'b' } } } } })).toContain(
      'mcp.servers.t.headers: only an HTTP server',
    );
  });

  it('bad server names, URLs and timeouts are named', () => {
    expect(messageOf({ mcp: { servers: { 'bad name': everything } } })).toContain(
      'mcp.servers.bad name: a server name is 1-32 letters',
    );
    expect(messageOf({ mcp: { servers: { a__b: everything } } })).toContain(
      'mcp.servers.a__b: a server name has no "__"',
    );
    expect(messageOf({ mcp: { servers: { ['x'.repeat(33)]: everything } } })).toContain('a server name is 1-32');
    for (const url of ['ftp://h/mcp', 'https://u:p@h/mcp', 'https://h/mcp?key=1', 'not a url'])
      expect(messageOf({ mcp: { servers: { t: { url } } } }), url).toContain('mcp.servers.t.url: must');
    expect(messageOf({ mcp: { servers: { t: { ...everything, call_timeout_ms: 0 } } } })).toContain(
      'mcp.servers.t.call_timeout_ms',
    );
    expect(messageOf({ mcp: { exposure: 'lazy' } })).toContain('mcp.exposure');
  });

  it('a literal secret in headers or env is refused; a reference is required', () => {
    const header = messageOf({
      mcp: { servers: { tracker: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer abc' } } } },
    });
    expect(header).toContain('mcp.servers.tracker.headers.Authorization:');
    expect(header).toContain('put the secret in the environment and write "${NAME}"');
    expect(messageOf({ mcp: { servers: { e: { ...everything, env: { GITHUB_TOKEN: 'ghp_x' } } } } })).toContain(
      'mcp.servers.e.env.GITHUB_TOKEN: looks like a secret',
    );
    expect(messageOf({ mcp: { servers: { e: { ...everything, env: { X: 'a ${oops' } } } } })).toContain(
      'mcp.servers.e.env.X: "a ${oops": a "${" must open a reference',
    );
    expect(messageOf({ mcp: { servers: { e: { ...everything, env: { 'BAD-NAME': '1' } } } } })).toContain(
      'mcp.servers.e.env.BAD-NAME: not an environment variable name',
    );
  });

  it('concurrency.mcp_connections is 1..64', () => {
    for (const n of [0, 65, 1.5])
      expect(messageOf({ concurrency: { mcp_connections: n } })).toContain(
        'concurrency.mcp_connections: a whole number from 1 to 64',
      );
    expect(load({ concurrency: { mcp_connections: 64 } }).concurrency).toEqual({ tool_calls: 8, mcp_connections: 64 });
  });
});

describe('permission rules for MCP tools', () => {
  it('accepts mcp__<server>__* and mcp__<server>__<tool>, refuses mcp__bad', () => {
    const cfg = load({
      permission: { mode: 'strict', rules: { 'mcp__everything__*': 'deny', mcp__everything__echo: 'allow' } },
    });
    expect(cfg.permission.rules.map((r) => [r.tool, r.action])).toEqual([
      ['mcp__everything__*', 'deny'],
      ['mcp__everything__echo', 'allow'],
    ]);
    expect(messageOf({ permission: { rules: { mcp__bad: 'deny' } } })).toContain('permission.rules.mcp__bad');
  });
});

describe('MCP template variables reach the host worker service', () => {
  it('stores the referenced variables set here, never unset ones or this process own settings', () => {
    const home = mkdtempSync(join(tmpdir(), 'zuno-mcp-creds-'));
    const cfg = load({
      mcp: {
        servers: {
          tracker: { url: 'https://mcp.example.com/mcp', headers: { Authorization: 'Bearer ${MCP_CFG_TEST_TOKEN}' } },
          local: { command: 'x', env: { UNSET: '${MCP_CFG_TEST_UNSET}', P: '${PATH}', H: '${ZUNO_HOME}' } },
        },
      },
    });
    process.env.MCP_CFG_TEST_TOKEN = 'tok-1';
    delete process.env.MCP_CFG_TEST_UNSET;
    try {
      shareMcpVariables(home, sessionMcp(cfg, '/ws'));
      expect(readCredentials(home)).toEqual({ MCP_CFG_TEST_TOKEN: 'tok-1' });
      // A rotated token replaces the stored one; no MCP config stores nothing.
      process.env.MCP_CFG_TEST_TOKEN = 'tok-2';
      shareMcpVariables(home, sessionMcp(cfg, '/ws'));
      shareMcpVariables(home, undefined);
      expect(readCredentials(home)).toEqual({ MCP_CFG_TEST_TOKEN: 'tok-2' });
    } finally {
      delete process.env.MCP_CFG_TEST_TOKEN;
      rmSync(home, { recursive: true, force: true });
    }
  });
});

describe('the session meta carries mcp', () => {
  const parts = (zcfg: ReturnType<typeof load>, agent?: Pick<SessionMeta, 'agent' | 'tools'>) =>
    sessionMetaFor({
      sessionId: 'ses_mcpmeta',
      workspace: '/ws',
      resolved: resolveModel(zcfg, 'openai/gpt-4.1'),
      title: 't',
      zcfg,
      temporal: { cfg: { activities: {} } } as unknown as TemporalContext,
      route: undefined,
      ...(agent ? { agent } : {}),
    });

  it('only enabled servers, the access of the role (build by default, plan read-only), none without servers', () => {
    const zcfg = load({ mcp: { servers: { everything, off: { command: 'x', enabled: false } } } });
    const meta = parts(zcfg);
    expect(meta.mcp?.servers.map((s) => s.name)).toEqual(['everything']);
    expect(meta.mcp?.access).toBe('all');
    expect(parts(zcfg, { agent: 'plan', tools: [...AGENT_ROLES.plan!.tools] }).mcp?.access).toBe('read_only');
    expect(parts(zcfg, { agent: 'plan' }).mcp?.access).toBe('read_only');
    expect('mcp' in parts(load({}))).toBe(false);
  });
});
