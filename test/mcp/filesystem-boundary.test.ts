/**
 * The directory a person configures `@modelcontextprotocol/server-filesystem`
 * with stays its boundary (docs/mcp.md, README "Connect MCP servers"): Zuno
 * offers no MCP roots, which the server would otherwise take instead of its
 * configured directories (widening it to the whole workspace). Real server
 * over stdio, started by the worker's hub, relative directory resolved in
 * the workspace.
 */
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpHub } from '../../activities/mcp/index.js';
import { FILESYSTEM, sessionConfig, stdioServer } from './helpers.js';

const ws = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-mcp-fs-')));
mkdirSync(join(ws, 'docs'));
writeFileSync(join(ws, 'docs', 'guide.md'), 'the guide\n');
writeFileSync(join(ws, 'secret.txt'), 'outside the boundary\n');
const hub = createMcpHub();
afterAll(async () => {
  await hub.closeAll();
  rmSync(ws, { recursive: true, force: true });
});

/** The text of a call's answer. */
function text(a: { content: Array<Record<string, unknown>> }): string {
  return a.content.map((c) => (typeof c.text === 'string' ? c.text : '')).join('\n');
}

describe('server-filesystem limited to a directory', () => {
  it('allows only the configured directory (relative to the workspace), not the workspace', async () => {
    const ref = {
      sessionId: 'fs-boundary',
      workspace: ws,
      config: sessionConfig([stdioServer('files', [FILESYSTEM, 'docs'])]),
    };
    const [status] = await hub.catalog(ref);
    expect(status?.status, status?.error).toBe('connected');
    const allowed = await hub.call(ref, { server: 'files', tool: 'list_allowed_directories' }, {}, {});
    expect(text(allowed).trim()).toBe(`Allowed directories:\n${join(ws, 'docs')}`);
    const inside = await hub.call(
      ref,
      { server: 'files', tool: 'read_text_file' },
      { path: join(ws, 'docs', 'guide.md') },
      {},
    );
    expect(inside.isError).toBe(false);
    expect(text(inside)).toContain('the guide');
    const outside = await hub.call(
      ref,
      { server: 'files', tool: 'read_text_file' },
      { path: join(ws, 'secret.txt') },
      {},
    );
    expect(outside.isError).toBe(true);
    expect(text(outside)).not.toContain('outside the boundary');
  });
});
