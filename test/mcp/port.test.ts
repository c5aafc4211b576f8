/**
 * The McpPort of a tool call and the session MCP catalog
 * (activities/mcp/port.ts, session-catalog.ts) over a real server and a real
 * SQLite projection: visibility (ceiling, whole-server deny), exposure
 * (budget → deferred; the durable ledger makes a found tool direct) and the
 * idempotent `mcp.tools.exposed` record.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMcpHub } from '../../activities/mcp/index.js';
import { mcpPort } from '../../activities/mcp/port.js';
import { sessionMcpCatalog } from '../../activities/mcp/session-catalog.js';
import { openProjectionStore } from '../../activities/projection/open.js';
import type { ProjectionStore } from '../../activities/projection/types.js';
import { EV } from '../../core/events.js';
import type { PermissionPolicy } from '../../core/permission/types.js';
import { sessionRow } from '../projection/harness.js';
import { EVERYTHING, sessionConfig, stdioServer } from './helpers.js';

const hub = createMcpHub();
const dir = mkdtempSync(join(tmpdir(), 'zuno-mcp-port-'));
let store: ProjectionStore;
const sessionId = `ses_mcp_port_${process.pid}`;
// A budget of 3 tools: the everything server (14 tools) is deferred whole.
const config = sessionConfig([stdioServer('everything', [EVERYTHING, 'stdio'])], {
  budget: { tools: 3, bytes: 1 << 20 },
});
const ref = { sessionId, workspace: dir, config };

beforeAll(async () => {
  store = await openProjectionStore({ zunoDir: dir });
  await store.upsertSession(sessionRow(sessionId, Date.now()));
});
afterAll(async () => {
  await hub.closeAll();
  await store?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe('the session MCP catalog and the tool call port', () => {
  it('defers a server over the budget; with tool_search not offered every schema is direct (MC6)', async () => {
    const cat = await sessionMcpCatalog(hub, ref, store, undefined, true);
    expect(cat.tools.length).toBeGreaterThan(3);
    expect(cat.direct.size).toBe(0);
    expect(cat.deferred.has('mcp__everything__echo')).toBe(true);
    const all = await sessionMcpCatalog(hub, ref, store, undefined, false);
    expect(all.deferred.size).toBe(0);
    expect(all.direct.size).toBe(all.tools.length);
  });

  it('the read-only ceiling and a whole-server deny hide tools', async () => {
    const ro = await sessionMcpCatalog(
      hub,
      { ...ref, config: { ...config, access: 'read_only' } },
      store,
      undefined,
      true,
    );
    expect(ro.tools.every((t) => t.facts.effect === 'ReadOnly')).toBe(true);
    expect(ro.tools.map((t) => t.tool)).not.toContain('toggle-simulated-logging');
    const deny: PermissionPolicy = { mode: 'standard', rules: [{ tool: 'mcp__everything__*', action: 'deny' }] };
    const denied = await sessionMcpCatalog(hub, ref, store, deny, true);
    expect(denied.tools).toEqual([]);
  });

  it('searchable() gives compact entries; expose() records once per call and the ledger makes the tool direct', async () => {
    const port = mcpPort(hub, ref, store, { sessionId, rowId: 'tc_0_0_0', callId: 'call_a', tool: 'tool_search' });
    const entries = await port.searchable();
    const echo = entries.find((e) => e.tool === 'echo')!;
    expect(echo).toMatchObject({ name: 'mcp__everything__echo', server: 'everything', deferred: true });
    expect(echo).not.toHaveProperty('inputSchema');
    expect(await port.expose('echo', [echo])).toBe(1);
    // The same call recorded again (a retried activity) writes nothing new.
    expect(await port.expose('echo', [echo])).toBe(1);
    const other = mcpPort(hub, ref, store, { sessionId, rowId: 'tc_0_1_0', callId: 'call_b', tool: 'tool_search' });
    const sum = entries.find((e) => e.tool === 'get-sum')!;
    expect(await other.expose('sum', [sum])).toBe(2);
    const events = await store.eventsOfType(sessionId, EV.mcpToolsExposed);
    expect(events.map((e) => e.id)).toEqual(['tc_0_0_0:exposed', 'tc_0_1_0:exposed']);
    const cat = await sessionMcpCatalog(hub, ref, store, undefined, true);
    expect(cat.ledgerRevision).toBe(2);
    expect([...cat.direct].sort()).toEqual(['mcp__everything__echo', 'mcp__everything__get-sum']);
    expect((await port.searchable()).find((e) => e.tool === 'echo')!.deferred).toBe(false);
  });

  it('call() reaches the server', async () => {
    const port = mcpPort(hub, ref, store, {
      sessionId,
      rowId: 'tc_0_2_0',
      callId: 'call_c',
      tool: 'mcp__everything__echo',
    });
    const answer = await port.call({ server: 'everything', tool: 'echo' }, { message: 'via port' });
    expect(answer.content).toEqual([{ type: 'text', text: 'Echo: via port' }]);
  });
});
