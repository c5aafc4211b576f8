import { beforeAll, describe, expect, inject, it } from 'vitest';
import { makeHome, makeWorkspace, runZuno, tempDir, writeJson } from './helpers.js';

/**
 * `zuno run` with a delegation (issue 12): the task call's start and return
 * read plainly on stderr, the child's own events stay in its session, and
 * `session show` lists the delegation. Real CLI, real dev server, scripted
 * provider serving the parent and the child (script threads).
 */
let address: string;
beforeAll(() => {
  address = inject('temporalAddress');
});

describe('zuno run with a task call', () => {
  it('shows the task starting and how its child ended; session show lists the delegation', async () => {
    const { home } = makeHome({ address });
    const ws = makeWorkspace();
    const script = writeJson(tempDir('zuno-cli-task-'), 'script.json', {
      replies: [
        {
          toolCalls: [
            {
              name: 'task',
              arguments: {
                agent: 'explore',
                objective: 'Find the TODO marker',
                deliverable: 'file and line',
                instructions: 'search src only',
                success_evidence: 'a file:line',
              },
            },
          ],
        },
        { text: 'The child found the TODO in src/a.ts:1.' },
      ],
      threads: [
        {
          match: 'Find the TODO marker',
          replies: [
            { toolCalls: [{ name: 'grep', arguments: { pattern: 'TODO', path: 'src' } }] },
            { text: 'src/a.ts:1 has the TODO.' },
          ],
        },
      ],
    });
    const r = await runZuno(['run', 'Where is the TODO?', '--dir', ws, '--script', script], {
      home,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect({ code: r.code, timedOut: r.timedOut }, r.stderr).toEqual({ code: 0, timedOut: false });
    expect(r.stdout).toBe('The child found the TODO in src/a.ts:1.\n');
    const err = r.stderr.split('\n');
    expect(err).toContain('→ task explore: Find the TODO marker');
    expect(
      err.some((l) => /^✓ task explore: child ses_[0-9a-f]{32} completed/.test(l)),
      r.stderr,
    ).toBe(true);
    expect(r.stderr).not.toContain('→ grep'); // the child's calls are in its own session
    const sessionId = /session (ses_[0-9a-z]+) started/.exec(r.stderr)![1]!;
    const show = await runZuno(['session', 'show', sessionId], { home });
    expect(show.code, show.stderr).toBe(0);
    expect(show.stdout).toContain('Delegations (1)');
    expect(show.stdout).toMatch(/explore.*completed/);
  }, 90_000);
});
