/**
 * What bounds `@modelcontextprotocol/server-filesystem` in a session
 * (docs/mcp.md "MCP roots", README "Connect MCP servers"): Zuno offers the
 * session's workspace as the one MCP root, and the server takes its
 * client's roots in place of the directories on its command line — so it
 * reaches the workspace and nothing outside it. Real server over stdio,
 * started by the worker's hub. If roots change, this test and those docs
 * change together.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpHub } from '../../activities/mcp/index.js';
import { FILESYSTEM, sessionConfig, stdioServer } from './helpers.js';

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-mcp-fs-ws-')));
const outside = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-mcp-fs-out-')));
mkdirSync(join(ws, 'docs'));
writeFileSync(join(ws, 'docs', 'guide.md'), 'the guide\n');
writeFileSync(join(outside, 'secret.txt'), 'outside the boundary\n');
const hub = createMcpHub();
afterAll(async () => {
  await hub.closeAll();
  rmSync(ws, { recursive: true, force: true });
  rmSync(outside, { recursive: true, force: true });
});

/** The text of a call's answer. */
function text(a: { content: Array<Record<string, unknown>> }): string {
  return a.content.map((c) => (typeof c.text === 'string' ? c.text : '')).join('\n');
}

describe('server-filesystem in a session', () => {
  it('is limited to the workspace (its MCP root), whatever directory its command line names', async () => {
    const ref = {
      sessionId: 'fs-boundary',
      workspace: ws,
      config: sessionConfig([stdioServer('files', [FILESYSTEM, 'docs'])]),
    };
    const [status] = await hub.catalog(ref);
    expect(status?.status, status?.error).toBe('connected');
    // The server applies the roots once initialized; its answer settles when it has.
    let allowed = '';
    for (let i = 0; i < 50 && !allowed.endsWith(ws); i++) {
      allowed = text(await hub.call(ref, { server: 'files', tool: 'list_allowed_directories' }, {}, {})).trim();
      if (!allowed.endsWith(ws)) await new Promise((r) => setTimeout(r, 100));
    }
    expect(allowed).toBe(`Allowed directories:\n${ws}`);
    const inside = await hub.call(
      ref,
      { server: 'files', tool: 'read_text_file' },
      { path: join(ws, 'docs', 'guide.md') },
      {},
    );
    expect(text(inside)).toContain('the guide');
    const denied = await hub.call(
      ref,
      { server: 'files', tool: 'read_text_file' },
      { path: join(outside, 'secret.txt') },
      {},
    );
    expect(denied.isError).toBe(true);
    expect(text(denied)).not.toContain('outside the boundary');
  });
});
