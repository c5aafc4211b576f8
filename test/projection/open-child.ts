// Child process for the concurrent-open test: waits for the parent's go file,
// opens the store on the given database, appends one event and prints
// `{"ok":true,"seq":N}` (or `{"ok":false,"error":…}`).
// Usage: node --import tsx open-child.ts <zunoDir> <goFile> <tag> [databaseUrl]
import { existsSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { openProjectionStore } from '../../activities/projection/open.js';
import { foreignEvent } from './harness.js';

const [zunoDir, goFile, tag, databaseUrl] = process.argv.slice(2) as [string, string, string, string | undefined];
process.stdout.write('ready\n');
while (!existsSync(goFile)) await sleep(2);
try {
  const store = await openProjectionStore({ zunoDir, databaseUrl });
  const seq = await store.appendEvent(
    foreignEvent({
      id: `evt_${tag}`,
      sessionId: 'ses_conc',
      type: 'test',
      data: { tag },
      atMs: 1,
    }),
  );
  await store.close();
  process.stdout.write(`${JSON.stringify({ ok: true, seq })}\n`);
} catch (err) {
  process.stdout.write(`${JSON.stringify({ ok: false, error: String(err) })}\n`);
  process.exitCode = 1;
}
