/**
 * An MCP answer as a tool result (activities/mcp/result.ts) on real answers of
 * `@modelcontextprotocol/server-everything`: text, an image kept as an
 * artifact, structured content, embedded resources and resource links.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createMcpHub } from '../../activities/mcp/index.js';
import { INLINE_RESOURCE_CHARS, mcpResult } from '../../activities/mcp/result.js';
import { EVERYTHING, sessionConfig, stdioServer } from './helpers.js';

const hub = createMcpHub();
const workspace = mkdtempSync(join(tmpdir(), 'zuno-mcp-result-'));
const ref = {
  sessionId: `ses_mcp_result_${process.pid}`,
  workspace,
  config: sessionConfig([stdioServer('everything', [EVERYTHING, 'stdio'])]),
};
const at = { workspace, sessionId: ref.sessionId, callId: 'call_1' };
const call = (tool: string, args: Record<string, unknown> = {}) =>
  hub.call(ref, { server: 'everything', tool }, args, {});

afterAll(async () => {
  await hub.closeAll();
  rmSync(workspace, { recursive: true, force: true });
});

describe('MCP answers as tool results', () => {
  it('text blocks are the output', async () => {
    const r = await mcpResult(await call('echo', { message: 'plain' }), at);
    expect(r).toEqual({ output: 'Echo: plain', isError: false });
  });

  it('an image is stored as an artifact and referenced by path', async () => {
    const r = await mcpResult(await call('get-tiny-image'), { ...at, callId: 'call_img' });
    const artifacts = (r.data as { artifacts: string[] }).artifacts;
    expect(artifacts).toHaveLength(1);
    const path = artifacts[0]!;
    expect(path.startsWith(join(workspace, '.zuno', 'artifacts'))).toBe(true);
    expect(path.endsWith('.png')).toBe(true);
    expect(existsSync(path)).toBe(true);
    // The PNG signature: the bytes were decoded, not stored as base64 text.
    expect(readFileSync(path).subarray(1, 4).toString('latin1')).toBe('PNG');
    expect(r.output).toContain(`stored as artifact ${path}`);
    expect(r.output).toContain('image/png');
    expect(r.output).not.toContain('iVBORw0KGgo');
  });

  it('structured content with text keeps the text; embedded text resources are inline', async () => {
    const structured = await call('get-structured-content', { location: 'New York' });
    expect(structured.structuredContent).toBeDefined();
    const r = await mcpResult(structured, at);
    expect(r.output.length).toBeGreaterThan(0);
    const alone = await mcpResult(
      { content: [], structuredContent: structured.structuredContent!, isError: false },
      at,
    );
    expect(JSON.parse(alone.output)).toEqual(structured.structuredContent);
  });

  it('an embedded resource: text inline, a long text or a blob as an artifact', async () => {
    const ref1 = await mcpResult(await call('get-resource-reference', { resourceType: 'Text', resourceId: 1 }), at);
    expect(ref1.output).toMatch(/\[resource \S+\]\n/);
    const long = 'x'.repeat(INLINE_RESOURCE_CHARS + 1);
    const kept = await mcpResult(
      {
        content: [{ type: 'resource', resource: { uri: 'demo://long', mimeType: 'text/plain', text: long } }],
        isError: false,
      },
      { ...at, callId: 'call_long' },
    );
    const path = (kept.data as { artifacts: string[] }).artifacts[0]!;
    expect(readFileSync(path, 'utf8')).toBe(long);
    const gz = await mcpResult(
      await call('gzip-file-as-resource', {
        name: 'a.gz',
        data: 'data:text/plain;base64,aGVsbG8=',
        outputType: 'resource',
      }),
      { ...at, callId: 'call_gz' },
    );
    const gzPath = (gz.data as { artifacts: string[] }).artifacts[0]!;
    expect(gzPath.endsWith('.gz')).toBe(true);
    expect(readFileSync(gzPath).subarray(0, 2)).toEqual(Buffer.from([0x1f, 0x8b]));
  });

  it('resource links are listed by URI', async () => {
    const r = await mcpResult(await call('get-resource-links', { count: 2 }), at);
    expect(r.output).toMatch(/\[resource link demo:\/\/resource\/\S+/);
  });

  it('an isError answer is mcp_call_failed with the server’s text', async () => {
    const r = await mcpResult(await call('echo', {}), at);
    expect(r.isError).toBe(true);
    expect(r.errorCode).toBe('mcp_call_failed');
    expect(r.output.length).toBeGreaterThan(0);
  });
});
