import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { startTestDevServer, type TestDevServer } from '../helpers/dev-server.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { waitFor } from '../helpers/worker-process.js';

let h: Harness | undefined;
let server: TestDevServer | undefined;
const dir = mkdtempSync(join(tmpdir(), 'zuno-restart-'));
afterAll(async () => {
  await h?.close();
  await server?.kill();
  rmSync(dir, { recursive: true, force: true });
});

it('the Temporal dev server crashes and restarts on the same db file mid-session: the session completes', async () => {
  server = await startTestDevServer(join(dir, 'temporal.db'));
  h = await createHarness({ address: server.address });
  const workspace = mkdtempSync(join(tmpdir(), 'zuno-restart-ws-'));
  writeFileSync(join(workspace, 'notes.md'), 'release checklist\n');
  const run = await h.startScripted({
    workspace,
    prompt: 'read the notes',
    script: {
      replies: [
        { toolCalls: [{ name: 'read', arguments: { path: 'notes.md' } }] },
        // The second model request is slow: the server dies and comes back while it is in flight.
        { text: 'The notes hold the release checklist.', fault: { delayMs: 6000 } },
      ],
    },
  });
  await waitFor(
    async () => (await h!.store.listEvents(run.sessionId, 0, 100)).some((e) => e.type === 'tool.completed'),
    30_000,
    'the read to complete',
  );
  await new Promise((r) => setTimeout(r, 500));
  await server.kill();
  await new Promise((r) => setTimeout(r, 1000));
  await server.start();
  const result = await run.result();
  await run.closeProvider();
  expect(result.status).toBe('completed');
  const t = (await h.store.loadTranscript(run.sessionId))!;
  expect(t.session.finalText).toBe('The notes hold the release checklist.');
  const ids = t.parts.map((p) => p.id);
  expect(new Set(ids).size).toBe(ids.length);
});
