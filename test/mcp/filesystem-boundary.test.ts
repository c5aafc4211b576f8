/**
 * What bounds `@modelcontextprotocol/server-filesystem` in a session
 * (docs/mcp.md "MCP roots", README "Connect MCP servers"): by default Zuno
 * offers no MCP roots, so the server keeps the directories on its command
 * line — limited to `docs/` it cannot read the workspace's other files or
 * anything outside; a server configured with `"roots": true` is offered the
 * session's workspace, which the server then takes as its boundary in place
 * of its command line. Real server over stdio, started by the worker's hub.
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
writeFileSync(join(ws, 'top.txt'), 'top of the workspace\n');
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

/** The server's answer to list_allowed_directories once it settles on `want` (roots apply after initialize). */
async function allowedOnce(ref: Parameters<typeof hub.call>[0], want: string): Promise<string> {
  let allowed = '';
  for (let i = 0; i < 50 && !allowed.endsWith(want); i++) {
    allowed = text(await hub.call(ref, { server: 'files', tool: 'list_allowed_directories' }, {}, {})).trim();
    if (!allowed.endsWith(want)) await new Promise((r) => setTimeout(r, 100));
  }
  return allowed;
}

/** The text of reading `path` through the server, and whether it was refused. */
async function read(ref: Parameters<typeof hub.call>[0], path: string): Promise<{ text: string; refused: boolean }> {
  const a = await hub.call(ref, { server: 'files', tool: 'read_text_file' }, { path }, {});
  return { text: text(a), refused: a.isError };
}

describe('server-filesystem in a session', () => {
  it('by default keeps the directory its command line names: docs/ inside, the rest of the workspace and outside refused', async () => {
    const docs = join(ws, 'docs');
    const ref = {
      sessionId: 'fs-default',
      workspace: ws,
      config: sessionConfig([stdioServer('files', [FILESYSTEM, docs])]),
    };
    const [status] = await hub.catalog(ref);
    expect(status?.status, status?.error).toBe('connected');
    expect(await allowedOnce(ref, docs)).toBe(`Allowed directories:\n${docs}`);
    expect((await read(ref, join(docs, 'guide.md'))).text).toContain('the guide');
    const top = await read(ref, join(ws, 'top.txt'));
    expect(top.refused).toBe(true);
    expect(top.text).not.toContain('top of the workspace');
    const far = await read(ref, join(outside, 'secret.txt'));
    expect(far.refused).toBe(true);
    expect(far.text).not.toContain('outside the boundary');
  });

  it('with "roots": true it is offered the workspace, which replaces its command line', async () => {
    const ref = {
      sessionId: 'fs-roots',
      workspace: ws,
      config: sessionConfig([stdioServer('files', [FILESYSTEM, join(ws, 'docs')], { roots: true })]),
    };
    const [status] = await hub.catalog(ref);
    expect(status?.status, status?.error).toBe('connected');
    expect(await allowedOnce(ref, ws)).toBe(`Allowed directories:\n${ws}`);
    expect((await read(ref, join(ws, 'top.txt'))).text).toContain('top of the workspace');
    const far = await read(ref, join(outside, 'secret.txt'));
    expect(far.refused).toBe(true);
    expect(far.text).not.toContain('outside the boundary');
  });
});
