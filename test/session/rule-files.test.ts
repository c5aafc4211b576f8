/**
 * Rule files through the whole stack (SE10, SPEC-DIGEST SE27/SE28): real
 * Temporal, the real local provider (whose captured request bodies show
 * what the model received), a real filesystem. ZUNO_HOME is a temp dir for
 * this file, so the user-level rule file is `<home>/AGENTS.md`.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, beforeEach, describe, expect, inject, it } from 'vitest';
import { resolvePaths } from '../../client/context.js';
import { sessionShowCommand } from '../../client/commands/session-show.js';
import { HumanRenderer } from '../../client/render.js';
import { submitInput } from '../../client/session-start.js';
import { EV, parseEventData } from '../../core/events.js';
import { createHarness, type Harness } from '../helpers/harness.js';
import { waitFor } from '../helpers/worker-process.js';
import { makeHome, runZuno, tempDir, writeJson } from '../cli/helpers.js';

const savedHome = process.env.ZUNO_HOME;
let home: string;
let userRules: string;
let h: Harness;

beforeAll(async () => {
  home = mkdtempSync(join(tmpdir(), 'zuno-rules-home-'));
  process.env.ZUNO_HOME = home;
  userRules = join(home, 'AGENTS.md');
  // The store `zuno session show` opens for this ZUNO_HOME.
  const stateDir = resolvePaths().stateDir;
  mkdirSync(stateDir, { recursive: true });
  h = await createHarness({ address: inject('temporalAddress'), stateDir });
});
afterAll(async () => {
  await h?.close();
  if (savedHome === undefined) delete process.env.ZUNO_HOME;
  else process.env.ZUNO_HOME = savedHome;
});
beforeEach(() => rmSync(userRules, { recursive: true, force: true }));

const workspace = (): string => mkdtempSync(join(tmpdir(), 'zuno-rules-ws-'));
const sha256 = (s: string | Buffer): string => createHash('sha256').update(s).digest('hex');

/** What `zuno session show <id> [--json]` prints. */
async function show(sessionId: string, json = false): Promise<string> {
  let out = '';
  await sessionShowCommand(sessionId, { json }, { out: (t) => (out += t), err: () => undefined });
  return out;
}

/** The one system message of a captured Chat Completions request. */
function chatSystem(body: unknown): string {
  const systems = (body as { messages: { role: string; content: string }[] }).messages.filter(
    (m) => m.role === 'system',
  );
  expect(systems).toHaveLength(1);
  return systems[0]!.content;
}

async function eventsOf<T extends typeof EV.instructionInForce | typeof EV.instructionNotInForce>(
  sessionId: string,
  type: T,
) {
  return (await h.store.eventsOfType(sessionId, type)).map((e) => parseEventData(type, e.data)!);
}

describe('rule files in force', () => {
  it('the user-level and the workspace AGENTS.md enter every request of the turn whole, user first; session show lists them', async () => {
    const ws = workspace();
    const userText = '# User rules\n\n- Answer in English.\n';
    const wsText = '# Workspace rules\n\nRun `npm run check` — ünïcode ✓ stays whole.\n';
    writeFileSync(userRules, userText);
    writeFileSync(join(ws, 'AGENTS.md'), wsText);
    const run = await h.runSession({
      workspace: ws,
      prompt: 'list',
      script: { replies: [{ toolCalls: [{ name: 'glob', arguments: { pattern: '*' } }] }, { text: 'done' }] },
    });
    expect(run.result.status).toBe('completed');
    expect(run.providerRequests).toHaveLength(2);
    const systems = run.providerRequests.map(chatSystem);
    expect(systems[1]).toBe(systems[0]);
    expect(systems[0]).toContain('You are Zuno');
    expect(systems[0]).toContain(`## User rules: ${userRules}\n\n${userText}`);
    expect(systems[0]).toContain(`## Workspace rules: ${join(ws, 'AGENTS.md')}\n\n${wsText}`);
    expect(systems[0]!.indexOf(userText)).toBeLessThan(systems[0]!.indexOf(wsText));

    const [inForce, ...more] = await eventsOf(run.sessionId, EV.instructionInForce);
    expect(more).toEqual([]);
    expect(inForce).toEqual({
      turn: 0,
      segment: 'instructions.rules',
      sha256: expect.stringMatching(/^[0-9a-f]{64}$/),
      budget: 64_000,
      sources: [
        { path: userRules, scope: 'user', bytes: Buffer.byteLength(userText), sha256: sha256(userText) },
        {
          path: join(ws, 'AGENTS.md'),
          scope: 'workspace',
          bytes: Buffer.byteLength(wsText),
          sha256: sha256(wsText),
        },
      ],
    });
    expect(await eventsOf(run.sessionId, EV.instructionNotInForce)).toEqual([]);

    const lines = (await show(run.sessionId)).split('\n');
    expect(lines).toContain('rule files (turn 1):');
    expect(lines).toContain(`  in force ${userRules} (user, ${Buffer.byteLength(userText)} bytes)`);
    expect(lines).toContain(`  in force ${join(ws, 'AGENTS.md')} (workspace, ${Buffer.byteLength(wsText)} bytes)`);
    const json = JSON.parse(await show(run.sessionId, true)) as { rules: unknown };
    expect(json.rules).toEqual([{ turn: 0, budget: 64_000, inForce: inForce!.sources, skipped: [] }]);
  });

  it('Responses `instructions` and Anthropic `system` carry the rules segment after the base prompt', async () => {
    const ws = workspace();
    const wsText = 'Prefer small commits.\n';
    writeFileSync(join(ws, 'AGENTS.md'), wsText);
    for (const transport of ['responses', 'anthropic-messages'] as const) {
      const run = await h.runSession({
        workspace: ws,
        prompt: 'hi',
        provider: (p) => ({ ...p, transport }),
        script: { replies: [{ text: 'ok' }] },
      });
      expect(run.result.status).toBe('completed');
      const body = run.providerRequests[0] as { instructions?: string; system?: string };
      const system = transport === 'responses' ? body.instructions : body.system;
      expect(system, transport).toMatch(/^You are Zuno/);
      expect(system, transport).toContain(`## Workspace rules: ${join(ws, 'AGENTS.md')}\n\n${wsText}`);
    }
  });

  it('an AGENTS.md edited during a turn (by the agent itself) applies from the next turn, not mid-turn', async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'AGENTS.md'), 'OLD RULES\n');
    const run = await h.startScripted({
      workspace: ws,
      prompt: 'edit the rules',
      exitWhenIdle: false,
      script: {
        replies: [
          { toolCalls: [{ name: 'shell', arguments: { command: "printf 'NEW RULES\\n' > AGENTS.md" } }] },
          { text: 'edited' },
          { text: 'second turn' },
        ],
      },
    });
    const turnsEnded = async (n: number) =>
      (await h.store.eventsOfType(run.sessionId, EV.completed)).length >= n ? true : undefined;
    await waitFor(() => turnsEnded(1), 30_000, 'the first turn to end');
    await submitInput(h.client, run.sessionId, { text: 'again' });
    await waitFor(() => turnsEnded(2), 30_000, 'the second turn to end');
    await h.client.workflow.getHandle(run.workflowId).terminate('test over');
    await run.closeProvider();
    const systems = run.providerRequests.map(chatSystem);
    expect(systems).toHaveLength(3);
    expect(systems[0]).toContain('OLD RULES');
    expect(systems[1]).toBe(systems[0]); // same turn, same segment bytes, though the file changed
    expect(systems[2]).toContain('NEW RULES');
    expect(systems[2]).not.toContain('OLD RULES');
    const records = await eventsOf(run.sessionId, EV.instructionInForce);
    expect(records.map((r) => [r.turn, r.sources[0]!.sha256])).toEqual([
      [0, sha256('OLD RULES\n')],
      [1, sha256('NEW RULES\n')],
    ]);
  });
});

describe('rule files over budget', () => {
  it('a file over the remaining budget is skipped whole with a warning notice (source, bytes, budget, remaining); a later smaller file still enters', async () => {
    const ws = workspace();
    const big = `BIG-RULES-START\n${'x'.repeat(69_983)}\n`; // 70 000 bytes, over the whole 64 000
    writeFileSync(userRules, big);
    writeFileSync(join(ws, 'AGENTS.md'), 'small workspace rules\n');
    const run = await h.runSession({ workspace: ws, prompt: 'hi', script: { replies: [{ text: 'ok' }] } });
    expect(run.result.status).toBe('completed');
    const system = chatSystem(run.providerRequests[0]);
    expect(system).not.toContain('BIG-RULES-START'); // not truncated into the prompt: absent
    expect(system).not.toContain('xxxxxxxxxx');
    expect(system).toContain('small workspace rules\n');
    expect(await eventsOf(run.sessionId, EV.instructionNotInForce)).toEqual([
      {
        turn: 0,
        level: 'warning',
        reason: 'over_budget',
        source: userRules,
        scope: 'user',
        bytes: 70_000,
        budget: 64_000,
        remaining: 64_000,
      },
    ]);
    expect((await eventsOf(run.sessionId, EV.instructionInForce))[0]!.sources.map((s) => s.scope)).toEqual([
      'workspace',
    ]);
    const lines = (await show(run.sessionId)).split('\n');
    expect(lines).toContain(
      `  skipped ${userRules} (user, 70000 bytes): over budget, 64000 of the 64000-byte rule budget left; never truncated`,
    );
    expect(lines).toContain(`  in force ${join(ws, 'AGENTS.md')} (workspace, 22 bytes)`);

    // zuno run shows the warning as it happens.
    let err = '';
    const renderer = new HumanRenderer({ out: () => undefined, err: (t) => (err += t) }, false);
    for (const row of await h.store.eventsOfType(run.sessionId, EV.instructionNotInForce)) renderer.render(row);
    expect(err).toBe(
      `(warning: rule file ${userRules} not in force: 70000 bytes do not fit the 64000 bytes left of the 64000-byte rule budget; skipped whole, never truncated)\n`,
    );
  });

  it('the budget is shared in order: what the first file uses is not left for the second', async () => {
    const ws = workspace();
    writeFileSync(userRules, 'u'.repeat(40_000));
    writeFileSync(join(ws, 'AGENTS.md'), `WS-RULES\n${'w'.repeat(29_991)}`); // 30 000 bytes > 24 000 left
    const run = await h.runSession({ workspace: ws, prompt: 'hi', script: { replies: [{ text: 'ok' }] } });
    expect(run.result.status).toBe('completed');
    const system = chatSystem(run.providerRequests[0]);
    expect(system).toContain('u'.repeat(40_000));
    expect(system).not.toContain('WS-RULES');
    expect(await eventsOf(run.sessionId, EV.instructionNotInForce)).toMatchObject([
      { source: join(ws, 'AGENTS.md'), scope: 'workspace', bytes: 30_000, budget: 64_000, remaining: 24_000 },
    ]);
  });
});

describe('unreadable rule files', () => {
  const cases: { name: string; make: (ws: string) => string; message: (path: string) => string }[] = [
    {
      name: 'a directory named AGENTS.md in the workspace',
      make: (ws) => {
        mkdirSync(join(ws, 'AGENTS.md'));
        return join(ws, 'AGENTS.md');
      },
      message: (p) => `AGENTS.md at ${p} is a directory, not a file: remove or rename it`,
    },
    {
      name: 'a FIFO named AGENTS.md at the user level (never waited on)',
      make: () => {
        execFileSync('mkfifo', [userRules]);
        return userRules;
      },
      message: (p) =>
        `AGENTS.md at ${p} is a FIFO (named pipe), not a regular file: replace it with a regular file or remove it`,
    },
    {
      name: 'an AGENTS.md that is not valid UTF-8',
      make: (ws) => {
        writeFileSync(join(ws, 'AGENTS.md'), Buffer.from([0xff, 0xfe, 0x41]));
        return join(ws, 'AGENTS.md');
      },
      message: (p) => `AGENTS.md at ${p} is not valid UTF-8 text: save it as UTF-8 or remove it`,
    },
  ];
  for (const c of cases) {
    it(`${c.name}: the turn ends blocked with rule_file_unreadable naming the file, before any provider request`, async () => {
      const ws = workspace();
      const path = c.make(ws);
      const run = await h.runSession({ workspace: ws, prompt: 'hi', script: { replies: [{ text: 'never' }] } });
      expect(run.result.status).toBe('blocked');
      expect(run.result.error).toEqual({ code: 'rule_file_unreadable', message: c.message(path) });
      expect(run.providerRequests).toHaveLength(0);
      const events = await h.store.listEvents(run.sessionId, 0, 1000);
      expect(events.some((e) => e.type === EV.providerRequest)).toBe(false);
      expect(events.some((e) => e.type === EV.instructionInForce)).toBe(false);
      expect(events.at(-1)!.type).toBe(EV.blocked);
      expect((await h.store.getSession(run.sessionId))!.status).toBe('blocked');
      // session show says why the turn ended, under the turn, the code once.
      expect((await show(run.sessionId)).split('\n')).toContain(
        `turn 1 ended blocked (rule_file_unreadable): ${c.message(path)}`,
      );
    });
  }

  // Tests here run as root, which reads a mode-000 file anyway: the case only fails (and is tested) for other users.
  it.skipIf(process.getuid?.() === 0)('a mode-000 AGENTS.md blocks the turn with permission denied', async () => {
    const ws = workspace();
    writeFileSync(join(ws, 'AGENTS.md'), 'secret\n', { mode: 0o000 });
    const run = await h.runSession({ workspace: ws, prompt: 'hi', script: { replies: [{ text: 'never' }] } });
    expect(run.result.status).toBe('blocked');
    expect(run.result.error?.code).toBe('rule_file_unreadable');
    expect(run.result.error?.message).toContain('cannot be read (permission denied, EACCES)');
    expect(run.providerRequests).toHaveLength(0);
  });

  it('zuno run starts anyway and prints the typed error as one line (exit 1)', async () => {
    const address = inject('temporalAddress');
    const { home: cliHome } = makeHome({ address });
    const ws = tempDir('zuno-rules-cli-ws-');
    mkdirSync(join(ws, 'AGENTS.md'));
    const script = writeJson(tempDir('zuno-rules-script-'), 'script.json', { replies: [{ text: 'never' }] });
    const r = await runZuno(['run', 'hi', '--dir', ws, '--script', script], {
      home: cliHome,
      env: { TEMPORAL_ADDRESS: address },
    });
    expect(r.code, r.stderr).toBe(1);
    // The typed line, then what to do next.
    const [typed, hint] = r.stderr.trimEnd().split('\n').slice(-2);
    expect(hint).toMatch(/^ {2}fix it, then continue: zuno run --session ses_[0-9a-z]+ "…"$/);
    expect(typed).toMatch(
      new RegExp(
        `^zuno: rule_file_unreadable: session ses_[0-9a-z]+ blocked: AGENTS\\.md at ${join(ws, 'AGENTS.md').replace(/[.]/g, '\\.')} is a directory, not a file: remove or rename it$`,
      ),
    );
    expect(r.stderr).not.toMatch(/\n\s+at /); // no stack trace
    expect(r.stderr).not.toContain('[temporal warn]'); // a BENIGN failure: the worker adds no WARN line
  });
});

describe('absent rule files', () => {
  it('no AGENTS.md anywhere: no notice, no rules segment, a record of no sources', async () => {
    const ws = workspace();
    const run = await h.runSession({ workspace: ws, prompt: 'hi', script: { replies: [{ text: 'ok' }] } });
    expect(run.result.status).toBe('completed');
    expect(chatSystem(run.providerRequests[0])).not.toContain('The following rule files');
    expect(await eventsOf(run.sessionId, EV.instructionNotInForce)).toEqual([]);
    expect(await eventsOf(run.sessionId, EV.instructionInForce)).toEqual([
      { turn: 0, segment: 'instructions.rules', sha256: null, budget: 64_000, sources: [] },
    ]);
    expect(await show(run.sessionId)).not.toContain('rule files');
  });
});
