import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { receiptId } from '../../activities/tools/shell/receipt.js';
import { toolImplementations } from '../../activities/tools/index.js';
import type { ReadCredential } from '../../core/tools/read.js';
import { validateToolCall } from '../../core/tools/registry.js';
import { ZunoError } from '../../core/errors.js';
import { checkReceiptPlaceholders, fillReceiptsFromRequest, scriptCallIds } from '../../local-provider/placeholders.js';
import { loadScript, type Script, type ScriptToolCall } from '../../local-provider/script.js';
import { newSessionId } from '../../client/session-start.js';
import { ROOT } from '../helpers/dev-server.js';
import type { Harness } from '../helpers/harness.js';
import type { TimeSkippingServer } from '../helpers/time-skipping.js';
import { GOAL_SERVERS } from '../helpers/goal-servers.js';

// The goal demo's assets (demo/goal-ci/): the project's real bug, the local CI,
// the scripted model's replies — checked with the real tools, and run as a real
// Goal (goal workflow, session, goal tools) on the dev server and on the
// time-skipping test server.
const DEMO = join(ROOT, 'demo', 'goal-ci');
const repos: string[] = [];
afterEach(() => {
  while (repos.length) rmSync(repos.pop()!, { recursive: true, force: true });
});

/** A fresh demo repository from prepare.mjs (removed after the test). */
function prepare(): string {
  const repo = execFileSync(process.execPath, [join(DEMO, 'prepare.mjs')], { encoding: 'utf8' }).trim();
  repos.push(repo);
  return repo;
}

/** Runs a command of the script in `repo` as bash would (the CI's wait shortened to `delay` s). */
function sh(repo: string, command: string, delay = '0') {
  return spawnSync('bash', ['-c', command], {
    cwd: repo,
    encoding: 'utf8',
    env: { ...process.env, CI_DELAY_SECONDS: delay },
  });
}

/** The script's tool calls, each with the index of its reply. */
function calls(script: Script): Array<ScriptToolCall & { reply: number }> {
  return script.replies.flatMap((r, reply) => (r.toolCalls ?? []).map((c) => ({ ...c, reply })));
}

/** The script's call with this id. */
function call(script: Script, id: string): ScriptToolCall & { reply: number } {
  const c = calls(script).find((x) => x.id === id);
  if (!c) throw new Error(`script.json has no call ${id}`);
  return c;
}

const args = (c: ScriptToolCall) => c.arguments as Record<string, unknown>;
const command = (c: ScriptToolCall) => String(args(c).command);
/** The evidence goal_update settles cr_1 with. */
const settled = (s: Script) => (args(call(s, 'call_goal_complete')).settle as { evidence: string }[])[0]!.evidence;

/** A Chat Completions request whose conversation holds a shell result with receipt `rcp` for each call id given. */
function chatWith(results: [callId: string, rcp: string][]): Record<string, unknown> {
  return {
    model: 'm',
    messages: [
      { role: 'user', content: 'go' },
      ...results.map(([callId, rcp]) => ({
        role: 'tool',
        tool_call_id: callId,
        content: `[verification ${rcp}] passed · exit 0 · authoritative (bash, pipefail)`,
      })),
    ],
  };
}

/** The script as the local provider serves it when every call's result carries the receipt `rcp`. */
function served(s: Script, rcp: string): Script {
  const body = chatWith([...scriptCallIds(s)].map((id) => [id, rcp]));
  const replies = s.replies.map((r) => {
    const f = fillReceiptsFromRequest(r, 'chat-completions', body);
    if ('missing' in f) throw new Error(`unfilled ${f.missing.join(', ')}`);
    return f.reply;
  });
  return { ...s, replies };
}

/** demo/goal-ci/goal.json: what the runner starts the Goal with. */
interface GoalJson {
  objective: string;
  criteria: { text: string; needsEvidence: boolean; check?: string }[];
  env: Record<string, string>;
}

let script: Script;
let goalJson: GoalJson;
beforeAll(async () => {
  script = await loadScript(join(DEMO, 'script.json'));
  goalJson = JSON.parse(readFileSync(join(DEMO, 'goal.json'), 'utf8')) as GoalJson;
});

describe('demo/goal-ci: the project, the local CI and the script', () => {
  it('script.json is a valid script whose calls validate against the real tools', () => {
    const all = calls(script);
    expect(all.map((c) => c.name)).toEqual([
      'shell',
      'shell',
      'read',
      'read',
      'apply_patch',
      'shell',
      'shell',
      'goal_get',
      'goal_update',
    ]);
    // goal_update's evidence must be a receipt id: validate the script as the session will serve it.
    for (const c of calls(served(script, 'rcp_0123456789abcdef'))) {
      const v = validateToolCall(c.name, JSON.stringify(c.arguments));
      expect(v.ok, `${c.id}: ${JSON.stringify(v)}`).toBe(true);
    }
    // Both CI starts are background remote observers; the authoritative checks run in the foreground.
    for (const id of ['call_ci_run_1', 'call_ci_run_2'])
      expect(args(call(script, id))).toMatchObject({ background: true, backgroundPurpose: 'remoteObserver' });
    for (const id of ['call_ci_status_1', 'call_ci_status']) expect(args(call(script, id)).background).toBeUndefined();
    // goal_update is the last call, alone in its reply, settling cr_1 with the status check's receipt.
    const goal = call(script, 'call_goal_complete');
    expect(script.replies[goal.reply]!.toolCalls).toHaveLength(1);
    expect(goal.reply).toBe(script.replies.length - 2);
    expect(args(goal)).toEqual({
      expected_revision: 2,
      settle: [{ id: 'cr_1', status: 'satisfied', evidence: '[verification {{receipt:call_ci_status}}]' }],
      complete: true,
    });
    // goal.json gives the goal the criterion cr_1 it settles.
    // It is owned by the CI status check (issue 26 item 6): only that command's receipt completes it.
    expect(goalJson.criteria).toEqual([
      { text: expect.stringContaining('sh ci/status'), needsEvidence: true, check: 'sh ci/status' },
    ]);
    expect(command(call(script, 'call_ci_status'))).toBe(goalJson.criteria[0]!.check);
  });

  it('the receipt placeholders are filled as a reply is served, from the newest result of the call; an unknown call id is refused', () => {
    const reply = script.replies.at(-1)!;
    expect(reply.text).toContain('{{receipt:call_ci_status}}');
    // Two results of the same provider call id: the newest is the one the model just saw.
    const body = chatWith([
      ['call_ci_status', 'rcp_1111111111111111'],
      ['call_ci_status', 'rcp_2222222222222222'],
    ]);
    const filled = fillReceiptsFromRequest(reply, 'chat-completions', body);
    expect('reply' in filled && filled.reply.text).toContain('rcp_2222222222222222');
    expect(JSON.stringify(filled)).not.toContain('{{receipt:');
    // `@<n>` cites the n-th result of that call id instead (oldest first).
    expect(fillReceiptsFromRequest({ text: '{{receipt:call_ci_status@1}}' }, 'chat-completions', body)).toEqual({
      reply: { text: 'rcp_1111111111111111' },
    });
    expect(fillReceiptsFromRequest({ text: '{{receipt:call_ci_status@3}}' }, 'chat-completions', body)).toEqual({
      missing: ['call_ci_status@3'],
    });
    expect(JSON.stringify(script)).toContain('{{receipt:call_ci_status}}'); // the loaded script is left as it was
    // The same for the Responses and Anthropic surfaces.
    const responses = {
      input: [
        {
          type: 'function_call_output',
          call_id: 'call_ci_status',
          output: '[verification rcp_3333333333333333] passed',
        },
      ],
    };
    expect(JSON.stringify(fillReceiptsFromRequest(reply, 'responses', responses))).toContain('rcp_3333333333333333');
    const anthropic = {
      messages: [
        {
          role: 'user',
          content: [
            {
              type: 'tool_result',
              tool_use_id: 'call_ci_status',
              content: [{ type: 'text', text: '[verification rcp_4444444444444444] passed' }],
            },
          ],
        },
      ],
    };
    expect(JSON.stringify(fillReceiptsFromRequest(reply, 'anthropic-messages', anthropic))).toContain(
      'rcp_4444444444444444',
    );
    // A reply citing a call whose result is not in its conversation is not filled.
    expect(fillReceiptsFromRequest(reply, 'chat-completions', chatWith([]))).toEqual({ missing: ['call_ci_status'] });
    expect(scriptCallIds(script).has('call_ci_status')).toBe(true);
    expect(checkReceiptPlaceholders(script)).toBe(script);
    const typo = { replies: [{ toolCalls: [{ name: 'x', arguments: { e: '{{receipt:call_nope}}' } }] }] };
    const err = (() => {
      try {
        return checkReceiptPlaceholders(typo);
      } catch (e) {
        return e;
      }
    })();
    expect(err).toBeInstanceOf(ZunoError);
    expect((err as ZunoError).code).toBe('script_invalid');
    expect((err as Error).message).toContain('{{receipt:call_nope}} names no tool call');
  });

  it('prepare makes a committed git repository; CI fails, the scripted patch (real apply_patch) fixes it, CI passes', async () => {
    const repo = prepare();
    expect(execFileSync('git', ['log', '--oneline'], { cwd: repo, encoding: 'utf8' }).trim().split('\n')).toHaveLength(
      1,
    );
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe('');
    const sessionId = newSessionId();
    const ctx = (callId: string, credentials?: (p: string) => ReadCredential | undefined) => ({
      workspace: repo,
      sessionId,
      rowId: `tc_${callId}`,
      callId,
      ...(credentials ? { credentials } : {}),
    });

    // No run yet: ci/status says so and fails.
    expect(sh(repo, command(call(script, 'call_ci_status_1'))).status).toBe(2);
    // Run 1: the observer exits 0 (it observed the run); the run failed.
    const run1 = sh(repo, command(call(script, 'call_ci_run_1')));
    expect(run1.status, run1.stderr).toBe(0);
    expect(run1.stdout).toContain('ci: run 1 started (status running');
    expect(run1.stdout).toContain('ci: run 1 failed: 3 passed, 1 failed (log: .ci/runs/1/log)');
    expect(readFileSync(join(repo, '.ci/runs/1/status'), 'utf8')).toBe('failed\n');
    // The foreground check through the real shell tool: an authoritative failed receipt.
    const status1 = await toolImplementations.shell!.run(
      args(call(script, 'call_ci_status_1')),
      ctx('call_ci_status_1'),
    );
    expect(status1.output).toContain(
      `[verification ${receiptId(sessionId, 'tc_call_ci_status_1', 'call_ci_status_1')}] failed · exit 1`,
    );
    expect(status1.output).toContain('authoritative');

    // The reads of the script: the log names the failing test; the source read gives the credential.
    const log = await toolImplementations.read!.run(args(call(script, 'call_read_log_1')), ctx('call_read_log_1'));
    expect(log.isError, log.output).toBe(false);
    expect(log.output).toContain('cuts a long slug to exactly maxLength characters');
    const src = await toolImplementations.read!.run(args(call(script, 'call_read_src')), ctx('call_read_src'));
    expect(src.isError, src.output).toBe(false);
    const credential = src.data!.credential as ReadCredential;
    expect(credential.path).toBe('src/slugify.js');

    // The script's patch, through the real apply_patch tool with that credential.
    const patched = await toolImplementations.apply_patch!.run(
      args(call(script, 'call_fix')),
      ctx('call_fix', (p) => (p === credential.path ? credential : undefined)),
    );
    expect(patched.isError, patched.output).toBe(false);
    expect(readFileSync(join(repo, 'src/slugify.js'), 'utf8')).toContain(
      "return slug.slice(0, maxLength).replace(/-+$/, '');",
    );
    expect(execFileSync('git', ['diff', '--stat'], { cwd: repo, encoding: 'utf8' })).toContain('src/slugify.js');

    // Run 2 passes; the foreground check's receipt is the evidence goal_update cites.
    const run2 = sh(repo, command(call(script, 'call_ci_run_2')));
    expect(run2.status, run2.stderr).toBe(0);
    expect(run2.stdout).toContain('ci: run 2 passed: 4 passed, 0 failed');
    const status2 = await toolImplementations.shell!.run(args(call(script, 'call_ci_status')), ctx('call_ci_status'));
    const rcp = receiptId(sessionId, 'tc_call_ci_status', 'call_ci_status');
    expect(status2.output).toContain(`[verification ${rcp}] passed · exit 0 · authoritative`);
    expect(status2.output).toContain('ci: latest run 2 passed: 4 passed, 0 failed');
    const body = chatWith([]);
    (body.messages as unknown[]).push({ role: 'tool', tool_call_id: 'call_ci_status', content: status2.output });
    const reply = script.replies[call(script, 'call_goal_complete').reply]!;
    const filled = fillReceiptsFromRequest(reply, 'chat-completions', body);
    expect('reply' in filled && settled({ replies: [filled.reply] })).toBe(`[verification ${rcp}]`);
  });

  it('the CI refuses a bad delay, and ci/status reports a run still running (exit 3)', async () => {
    const repo = prepare();
    const bad = sh(repo, 'sh ci/run', 'soon');
    expect(bad.status).toBe(2);
    expect(bad.stderr).toContain("CI_DELAY_SECONDS must be a number of seconds, got 'soon'");
    const running = spawnSync(
      'bash',
      ['-c', 'sh ci/run >/dev/null & sleep 0.5; sh ci/status; code=$?; wait; exit $code'],
      {
        cwd: repo,
        encoding: 'utf8',
        env: { ...process.env, CI_DELAY_SECONDS: '2' },
      },
    );
    expect(running.stdout).toContain('ci: latest run 1 running');
    expect(running.status).toBe(3);
  });
});

describe.each(GOAL_SERVERS)('demo/goal-ci as a real Goal on %s', (_name, open) => {
  let h: Harness;
  let ts: TimeSkippingServer | undefined;
  beforeAll(async () => {
    ({ h, ts } = await open());
  });
  afterAll(async () => {
    await h?.close();
    await ts?.teardown();
  });

  it('three turns: CI fails, the patch applies, CI passes, goal_update completes the goal with the receipt', async () => {
    const repo = prepare();
    const sessionId = newSessionId();
    const before = process.env.CI_DELAY_SECONDS;
    // goal.json says 3 s; 1 s is still long enough that each report arrives after its turn ended.
    process.env.CI_DELAY_SECONDS = '1';
    const g = await h.startScriptedGoal({
      sessionId,
      workspace: repo,
      prompt: goalJson.objective,
      criteria: goalJson.criteria,
      script, // its receipt placeholder is filled by the local provider as it serves the reply
    });
    let final;
    try {
      final = await g.result();
    } finally {
      if (before === undefined) delete process.env.CI_DELAY_SECONDS;
      else process.env.CI_DELAY_SECONDS = before;
      await g.closeProvider();
    }
    const t = (await h.store.loadTranscript(sessionId))!;
    const byCall = new Map(t.toolCalls.map((c) => [c.callId, c]));
    const rcp = receiptId(sessionId, byCall.get('call_ci_status')!.id, 'call_ci_status');
    expect(final.state.status).toBe('completed');
    expect(final.revision).toBe(3);
    expect(final.criteria).toEqual([
      expect.objectContaining({
        id: 'cr_1',
        status: 'satisfied',
        evidence: { receiptId: rcp, callId: 'call_ci_status' },
      }),
    ]);
    const session = await g.sessionResult();
    expect(session.status).toBe('completed');
    expect(session.turns).toBe(3);
    expect(t.toolCalls.map((c) => [c.callId, c.tool, c.outcome])).toEqual([
      ['call_ci_run_1', 'shell', 'ok'],
      ['call_ci_status_1', 'shell', 'ok'], // the call ran; its receipt says the check failed
      ['call_read_log_1', 'read', 'ok'],
      ['call_read_src', 'read', 'ok'],
      ['call_fix', 'apply_patch', 'ok'],
      ['call_ci_run_2', 'shell', 'ok'],
      ['call_ci_status', 'shell', 'ok'],
      ['call_goal_get', 'goal_get', 'ok'],
      ['call_goal_complete', 'goal_update', 'ok'],
    ]);
    expect(byCall.get('call_ci_status_1')!.output).toContain(
      `[verification ${receiptId(sessionId, byCall.get('call_ci_status_1')!.id, 'call_ci_status_1')}] failed · exit 1 · authoritative`,
    );
    expect(byCall.get('call_ci_status')!.output).toContain(`[verification ${rcp}] passed · exit 0 · authoritative`);
    // The revision the script sends is the one goal_get showed.
    expect(byCall.get('call_goal_get')!.output).toContain(' · revision 2 · ');
    expect(byCall.get('call_goal_complete')!.output).toContain('goal_update committed: revision 3, completed');
    expect(readFileSync(join(repo, '.ci/runs/2/status'), 'utf8')).toBe('passed\n');
    // The report turns' requests carried each observer's report.
    expect(JSON.stringify(g.providerRequests)).toContain('ci: run 1 failed: 3 passed, 1 failed');
    expect(JSON.stringify(g.providerRequests)).toContain('ci: run 2 passed: 4 passed, 0 failed');
    // The turn that completed the goal is counted too.
    expect((await h.store.getGoal(g.goalId))!.snapshot.spent.turns).toBe(3);
    // On the time-skipping server nothing was left holding its clock.
    if (ts) expect(await ts.timeSkips()).toBe(true);
    else {
      // The operator's query (the test server has no visibility store) finds the completed goal.
      const query = `ZunoKind='goal' AND ZunoGoalStatus='completed' AND ZunoSessionId='${sessionId}'`;
      await vi.waitFor(
        async () => {
          const found: string[] = [];
          for await (const w of h.client.workflow.list({ query })) found.push(w.workflowId);
          expect(found).toEqual([g.workflowId]);
        },
        { timeout: 20_000, interval: 500 },
      );
    }
  });
});
