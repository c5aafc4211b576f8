import { mkdirSync, mkdtempSync, readdirSync, rmSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { pruneScripts, SCRIPT_KEEP_MS, scriptsDir } from '../../worker/scripted-models.js';

const home = mkdtempSync(join(tmpdir(), 'zuno-prune-'));
afterAll(() => rmSync(home, { recursive: true, force: true }));

describe("a home's stored scripts are removed once unused for 30 days (pruneScripts)", () => {
  it('removes an old instance with its state, keeps one whose state was written lately, and other files', async () => {
    const dir = scriptsDir(home);
    mkdirSync(dir, { recursive: true });
    const now = Date.now();
    const at = (name: string, ageMs: number) => {
      writeFileSync(join(dir, name), '{}');
      const t = (now - ageMs) / 1000;
      utimesSync(join(dir, name), t, t);
    };
    at('ses_old-1.json', SCRIPT_KEEP_MS + 60_000);
    at('ses_old-1.state.json', SCRIPT_KEEP_MS + 60_000);
    at('ses_live-2.json', SCRIPT_KEEP_MS + 60_000);
    at('ses_live-2.state.json', 60_000); // its conversation moved a minute ago
    at('ses_new-3.json', 1_000);
    at('notes.txt', SCRIPT_KEEP_MS * 2);
    expect(await pruneScripts(home, now)).toEqual(['ses_old-1']);
    expect(readdirSync(dir).sort()).toEqual([
      'notes.txt',
      'ses_live-2.json',
      'ses_live-2.state.json',
      'ses_new-3.json',
    ]);
    expect(await pruneScripts(join(home, 'missing'), now)).toEqual([]);
  });
});
