import { it, inject } from 'vitest';
import { makeHome, makeWorkspace, runZuno, tempDir, writeJson } from '/work/main/test/cli/helpers.js';
it('dbg', async () => {
  const address = inject('temporalAddress');
  const scriptFile = writeJson(tempDir('s-'), 'script.json', { replies: [
    { text: 'Searching.', toolCalls: [{ name: 'grep', arguments: { pattern: 'TODO', path: 'src' } }] },
    { text: 'The TODO is in src/a.ts line 1.' } ] });
  const { home } = makeHome({ address });
  const ws = makeWorkspace();
  const r = await runZuno(['run', 'Find the TODO', '--dir', ws, '--script', scriptFile], { home, env: { TEMPORAL_ADDRESS: address } });
  console.log(JSON.stringify(r, null, 1));
  const r2 = await runZuno(['run', 'Find the TODO', '--dir', ws, '--script', scriptFile, '--json'], { home, env: { TEMPORAL_ADDRESS: address } });
  console.log(r2.stdout);
  const id = JSON.parse(r2.stdout.trim().split('\n').at(-1)!).sessionId;
  const s = await runZuno(['session', 'show', id], { home });
  console.log(s.stdout);
}, 60000);
