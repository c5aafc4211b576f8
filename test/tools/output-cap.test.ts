import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { defineTool } from '../../activities/tools/index.js';
import type { ToolDeclaration } from '../../core/tools/types.js';

/** A declaration of a test-only tool that echoes `text` `times` times. */
const echoDeclaration: ToolDeclaration<{ text: string; times: number }> = {
  name: 'read', // reuses read.txt as its description file; the behaviour under test is the wrapper's
  effect: 'ReadOnly',
  replay: 'Safe',
  concurrency: 'ParallelSafe',
  args: z.object({ text: z.string(), times: z.number().int().min(1) }),
  summarize: (a) => `echo ${a.text}`,
};
const echo = {
  run: async (a: { text: string; times: number }) => ({ output: a.text.repeat(a.times), isError: false }),
};

describe('the shared tool wrapper (TD8 validation, TD9 caps)', () => {
  const ctx = () => ({
    workspace: mkdtempSync(join(tmpdir(), 'zuno-cap-')),
    sessionId: 's1',
    rowId: 'tc_1_0_0',
    callId: 'c1',
  });

  it('rejects arguments that do not match the declaration with invalid_arguments, naming the field', async () => {
    const tool = defineTool(echoDeclaration, echo);
    const r = await tool.run({ text: 'x', times: 0 }, ctx());
    expect(r).toMatchObject({ isError: true, errorCode: 'invalid_arguments' });
    expect(r.output).toContain('- times:');
  });

  it('withholds over-cap output whole to an artifact (never truncated) and keeps the outcome', async () => {
    const c = ctx();
    const line = 'abcdefghij\n';
    const r = await defineTool(echoDeclaration, echo).run({ text: line, times: 6000 }, c);
    expect(r.isError).toBe(false);
    expect(r.output).toMatch(
      /^Output withheld: 66000 bytes in 6000 lines exceeds tool_output.max_bytes \(51200 bytes\)/,
    );
    const withheld = r.data!.withheldOutput as { artifactPath: string; bytes: number; cap: string };
    expect(withheld).toMatchObject({ bytes: 66000, cap: 'max_bytes' });
    expect(withheld.artifactPath.startsWith(join(c.workspace, '.zuno', 'artifacts'))).toBe(true);
    expect(readFileSync(withheld.artifactPath, 'utf8')).toBe(line.repeat(6000));
    expect(r.data!.outputPaths).toEqual([withheld.artifactPath]);
  });

  it('leaves output within the caps inline, and never caps a body that withholds its own output', async () => {
    const small = await defineTool(echoDeclaration, echo).run({ text: 'ok\n', times: 3 }, ctx());
    expect(small).toEqual({ output: 'ok\nok\nok\n', isError: false });
    const own = await defineTool(echoDeclaration, { ...echo, output: 'own' }).run({ text: 'x\n', times: 3000 }, ctx());
    expect(own.output).toBe('x\n'.repeat(3000));
  });
});
