import { execFileSync, spawn, spawnSync } from 'node:child_process';
import { readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, inject, it } from 'vitest';
import { receiptId } from '../../activities/tools/shell/receipt.js';
import { toolImplementations } from '../../activities/tools/index.js';
import type { ReadCredential } from '../../core/tools/read.js';
import { validateToolCall } from '../../core/tools/registry.js';
import { evaluateWatch } from '../../core/goal/watch.js';
import type { GoalSnapshot } from '../../core/goal/contract.js';
import { fillReceiptsFromRequest, checkReceiptPlaceholders } from '../../local-provider/placeholders.js';
import { loadScript, type Script, type ScriptToolCall } from '../../local-provider/script.js';
import { newSessionId } from '../../client/session-start.js';
import { goalWatchInput } from '../../client/goal-watch-input.js';
import { loadZunoConfig } from '../../client/zuno-config.js';
import { sessionNetwork } from '../../client/network-config.js';
import { ROOT } from '../helpers/dev-server.js';
import type { Harness } from '../helpers/harness.js';
import type { TimeSkippingServer } from '../helpers/time-skipping.js';
import { makeHome, runZuno } from '../cli/helpers.js';
import { GOAL_SERVERS } from '../helpers/goal-servers.js';

// The release-watch demo (demo/release-watch/, `npm run demo:release`): the
// project whose test fails until left-pad-lite is bumped, the loopback
// registry that publishes 2.0.0 after a few requests, the scripted model's
// replies — checked with the real tools, run as a real watched Goal (goal
// workflow, watch probes, session, goal tools) on the dev server and on the
// time-skipping test server, and run.mjs itself run end to end through the
// launcher against the test run's dev server, in a throwaway ZUNO_HOME.
const DEMO = join(ROOT, 'demo', 'release-watch');
const repos: string[] = [];
afterEach(() => {
  while (repos.length) rmSync(repos.pop()!, { recursive: true, force: true });
});

/** demo/release-watch/registry.mjs (plain JavaScript, loaded at run time). */
interface Registry {
  url: string;
  requests(): number;
  publishedAt(): number | null;
  close(): Promise<void>;
}
type StartRegistry = (o?: { publishAfter?: number; log?: (line: string) => void }) => Promise<Registry>;
let startRegistry: StartRegistry;
let publishAfterDefault: number;

/** demo/release-watch/goal.json: what run.mjs starts the Goal with. */
interface GoalJson {
  objective: string;
  package: string;
  watch: { until: string; every: string; watchTimeout: string };
  criteria: { text: string; needsEvidence: boolean; check?: string }[];
}

let script: Script;
let goalJson: GoalJson;
beforeAll(async () => {
  script = await loadScript(join(DEMO, 'script.json'));
  goalJson = JSON.parse(readFileSync(join(DEMO, 'goal.json'), 'utf8')) as GoalJson;
  const mod = (await import(pathToFileURL(join(DEMO, 'registry.mjs')).href)) as {
    startRegistry: StartRegistry;
    PUBLISH_AFTER_DEFAULT: number;
  };
  startRegistry = mod.startRegistry;
  publishAfterDefault = mod.PUBLISH_AFTER_DEFAULT;
});

/** A fresh demo repository from prepare.mjs (removed after the test). */
function prepare(): string {
  const repo = execFileSync(process.execPath, [join(DEMO, 'prepare.mjs')], { encoding: 'utf8' }).trim();
  repos.push(repo);
  return repo;
}

/** The script's tool calls, each with the index of its reply. */
function calls(s: Script): Array<ScriptToolCall & { reply: number }> {
  return s.replies.flatMap((r, reply) => (r.toolCalls ?? []).map((c) => ({ ...c, reply })));
}
function call(s: Script, id: string): ScriptToolCall & { reply: number } {
  const c = calls(s).find((x) => x.id === id);
  if (!c) throw new Error(`script.json has no call ${id}`);
  return c;
}
const args = (c: ScriptToolCall) => c.arguments as Record<string, unknown>;

/** A Chat Completions request whose conversation holds a shell result with receipt `rcp` for `callId`. */
const chatWith = (callId: string, content: string) => ({
  model: 'm',
  messages: [
    { role: 'user', content: 'go' },
    { role: 'tool', tool_call_id: callId, content },
  ],
});

/** The watch and its criterion exactly as `zuno goal start --watch … --until …` builds them for run.mjs. */
function watchOf(registryUrl: string) {
  const w = goalWatchInput({ watch: `${registryUrl}/${goalJson.package}`, ...goalJson.watch });
  if (!w) throw new Error('no watch');
  return w;
}

/** GET `url`, as the watch's probe would judge it under the demo's condition. */
async function judged(url: string) {
  const res = await fetch(url);
  const body = await res.text();
  return { status: res.status, body, ...evaluateWatch(watchOf('http://x').watch.until, { status: res.status, body }) };
}

describe('demo/release-watch: the project, the registry and the script', () => {
  it('script.json: read, bump, the owning check, goal_get, goal_update settling cr_2 with the check receipt', () => {
    expect(calls(script).map((c) => [c.id, c.name])).toEqual([
      ['call_read_pkg', 'read'],
      ['call_bump', 'apply_patch'],
      ['call_test', 'shell'],
      ['call_goal_get', 'goal_get'],
      ['call_goal_complete', 'goal_update'],
    ]);
    expect(checkReceiptPlaceholders(script)).toBe(script);
    // Every call validates against the real tools as the local provider serves it (the receipt filled in).
    for (const c of calls(script)) {
      const filled = fillReceiptsFromRequest(
        script.replies[c.reply]!,
        'chat-completions',
        chatWith('call_test', '[verification rcp_0123456789abcdef] passed · exit 0 · authoritative'),
      );
      if (!('reply' in filled)) throw new Error(`unfilled ${filled.missing.join(', ')}`);
      const served = filled.reply.toolCalls!.find((x) => x.id === c.id)!;
      const v = validateToolCall(served.name, JSON.stringify(served.arguments));
      expect(v.ok, `${c.id}: ${JSON.stringify(v)}`).toBe(true);
    }
    const goal = call(script, 'call_goal_complete');
    expect(script.replies[goal.reply]!.toolCalls).toHaveLength(1);
    expect(goal.reply).toBe(script.replies.length - 2);
    // cr_1 is the watch's (settled by its report); cr_2, goal.json's criterion, is owned by `node --test`.
    expect(args(goal)).toEqual({
      expected_revision: 2,
      settle: [{ id: 'cr_2', status: 'satisfied', evidence: '[verification {{receipt:call_test}}]' }],
      complete: true,
    });
    expect(goalJson.criteria).toEqual([{ text: expect.any(String), needsEvidence: true, check: 'node --test' }]);
    expect(args(call(script, 'call_test'))).toEqual({ command: goalJson.criteria[0]!.check });
    expect(script.replies.at(-1)!.text).toContain('{{receipt:call_test}}');
    // goal.json's watch is what `zuno goal start` accepts: the criterion it owns comes first, as cr_1.
    const w = watchOf('http://127.0.0.1:9');
    expect(w.watch).toMatchObject({ url: 'http://127.0.0.1:9/left-pad-lite', everyMs: 2000, timeoutMs: 600_000 });
    expect(w.criterion.text).toBe('http://127.0.0.1:9/left-pad-lite shows json dist-tags.latest = 2.0.0');
  });

  it('the registry answers 1.0.0 for its first requests, then publishes 2.0.0; other paths are 404', async () => {
    const lines: string[] = [];
    const reg = await startRegistry({ publishAfter: 2, log: (l) => lines.push(l) });
    try {
      const url = `${reg.url}/left-pad-lite`;
      for (let i = 0; i < 2; i += 1) {
        const r = await judged(url);
        expect(r).toMatchObject({ status: 200, matched: false, value: '1.0.0' });
        expect(Object.keys((JSON.parse(r.body) as { versions: object }).versions)).toEqual(['1.0.0']);
      }
      expect(reg.publishedAt()).toBeNull();
      const r = await judged(url);
      expect(r).toMatchObject({ status: 200, matched: true, value: '2.0.0' });
      expect(JSON.parse(r.body)).toMatchObject({ name: 'left-pad-lite', versions: { '1.0.0': {}, '2.0.0': {} } });
      expect(reg.publishedAt()).not.toBeNull();
      expect(reg.requests()).toBe(3);
      expect((await fetch(`${reg.url}/`)).status).toBe(404);
      expect(lines).toContain('registry: published left-pad-lite 2.0.0 (request 3)');
    } finally {
      await reg.close();
    }
    expect(publishAfterDefault).toBeGreaterThanOrEqual(1);
  });

  it('prepare: a committed repository allowing the registry; its test fails until the scripted bump applies', async () => {
    const repo = prepare();
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: repo, encoding: 'utf8' })).toBe('');
    expect(sessionNetwork(loadZunoConfig(repo))).toEqual({ allowPrivate: ['127.0.0.1'] });
    const before = spawnSync(process.execPath, ['--test'], { cwd: repo, encoding: 'utf8' });
    expect(before.status).toBe(1);
    expect(before.stdout).toContain('# fail 1');
    expect(before.stdout).toContain('left-pad-lite ^1.0.0 is not major 2');

    const sessionId = newSessionId();
    const ctx = (callId: string, credentials?: (p: string) => ReadCredential | undefined) => ({
      workspace: repo,
      sessionId,
      rowId: `tc_${callId}`,
      callId,
      ...(credentials ? { credentials } : {}),
    });
    const read = await toolImplementations.read!.run(args(call(script, 'call_read_pkg')), ctx('call_read_pkg'));
    expect(read.isError, read.output).toBe(false);
    const credential = read.data!.credential as ReadCredential;
    const bumped = await toolImplementations.apply_patch!.run(
      args(call(script, 'call_bump')),
      ctx('call_bump', (p) => (p === credential.path ? credential : undefined)),
    );
    expect(bumped.isError, bumped.output).toBe(false);
    const pkg = JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8')) as { dependencies: object };
    expect(pkg.dependencies).toEqual({ 'left-pad-lite': '^2.0.0' });
    const test = await toolImplementations.shell!.run(args(call(script, 'call_test')), ctx('call_test'));
    const rcp = receiptId(sessionId, 'tc_call_test', 'call_test');
    expect(test.output).toContain(`[verification ${rcp}] passed · exit 0 · authoritative`);
    expect(test.output).toContain('# fail 0');
  });
});

describe.each(GOAL_SERVERS)('demo/release-watch as a real Goal on %s', (_name, open) => {
  let h: Harness;
  let ts: TimeSkippingServer | undefined;
  beforeAll(async () => {
    ({ h, ts } = await open());
  });
  afterAll(async () => {
    await h?.close();
    await ts?.teardown();
  });

  it('waits with no model request until 2.0.0 is published, wakes once, bumps, tests, completes on the receipt', async () => {
    const repo = prepare();
    const sessionId = newSessionId();
    // How many model requests had been made when the registry published 2.0.0 (-1: not yet published).
    const seen: { requests?: unknown[] } = {};
    let requestsAtPublish = -1;
    const reg = await startRegistry({
      log: (l) => {
        if (l.includes('published')) requestsAtPublish = seen.requests?.length ?? -2; // -2: the goal had not even started
      },
    });
    const w = watchOf(reg.url);
    let final: GoalSnapshot;
    const g = await h.startScriptedGoal({
      sessionId,
      workspace: repo,
      prompt: goalJson.objective,
      network: sessionNetwork(loadZunoConfig(repo))!,
      watch: w.watch,
      criteria: [w.criterion, ...goalJson.criteria],
      script,
    });
    seen.requests = g.providerRequests;
    try {
      final = await g.result();
    } finally {
      await g.closeProvider();
      await reg.close();
    }
    // The model was asked nothing before the registry published 2.0.0.
    expect(requestsAtPublish).toBe(0);
    expect(reg.requests()).toBe(publishAfterDefault + 1);
    const t = (await h.store.loadTranscript(sessionId))!;
    const byCall = new Map(t.toolCalls.map((c) => [c.callId, c]));
    const rcp = receiptId(sessionId, byCall.get('call_test')!.id, 'call_test');
    const report = `wr_${g.goalId}`;
    expect(final.state.status).toBe('completed');
    expect(final.revision).toBe(3);
    expect(final.watch).toMatchObject({
      attempts: publishAfterDefault + 1,
      sessionStarted: true,
      report: { reportId: report, outcome: 'matched', value: '2.0.0' },
    });
    expect(final.criteria).toEqual([
      expect.objectContaining({ id: 'cr_1', status: 'satisfied', evidence: { receiptId: report, callId: 'watch' } }),
      expect.objectContaining({ id: 'cr_2', status: 'satisfied', evidence: { receiptId: rcp, callId: 'call_test' } }),
    ]);
    expect(t.toolCalls.map((c) => [c.callId, c.outcome])).toEqual([
      ['call_read_pkg', 'ok'],
      ['call_bump', 'ok'],
      ['call_test', 'ok'],
      ['call_goal_get', 'ok'],
      ['call_goal_complete', 'ok'],
    ]);
    expect(byCall.get('call_test')!.output).toContain(`[verification ${rcp}] passed · exit 0 · authoritative`);
    // The revision the script sends is the one goal_get showed: 1 at the start, 2 once the watch woke the goal.
    expect(byCall.get('call_goal_get')!.output).toContain(' · revision 2 · ');
    expect(byCall.get('call_goal_complete')!.output).toContain('goal_update committed: revision 3, completed');
    expect(JSON.parse(readFileSync(join(repo, 'package.json'), 'utf8'))).toMatchObject({
      dependencies: { 'left-pad-lite': '^2.0.0' },
    });
    // One turn: its first request carried the objective and the watch's report; the final text cites the receipt.
    expect(g.providerRequests).toHaveLength(script.replies.length);
    const first = JSON.stringify(g.providerRequests[0]);
    expect(first).toContain(goalJson.objective);
    expect(first).toContain(`The release watch matched (report ${report})`);
    const session = await g.sessionResult();
    expect(session).toMatchObject({ status: 'completed', turns: 1 });
    expect(JSON.stringify(t.parts)).toContain(`verified by its receipt ${rcp}`);
    const statuses = (await h.store.eventsOfType(sessionId, 'goal.status')).map(
      (e) => (e.data as { status: string }).status,
    );
    expect(statuses).toEqual(['waiting_watch', 'active', 'completed']);
    if (ts) expect(await ts.timeSkips()).toBe(true);
  }, 120_000);
});

describe('demo/release-watch/run.mjs through the launcher', () => {
  it('exits 0: the goal completed, goal show names the watch report and the receipt, the dependency is bumped', async () => {
    const { home } = makeHome({ address: inject('temporalAddress') });
    // run.mjs hands its environment to zuno; the test run's dev server (external) and a worker in the process.
    const env: NodeJS.ProcessEnv = {};
    for (const [k, v] of Object.entries(process.env)) if (!/^(ZUNO_|TEMPORAL_|DATABASE_URL$)/.test(k)) env[k] = v;
    Object.assign(env, { ZUNO_HOME: home, ZUNO_WORKER: 'in-process' });
    if (process.env.ZUNO_BUNDLE_CACHE) env.ZUNO_BUNDLE_CACHE = process.env.ZUNO_BUNDLE_CACHE;
    const child = spawn(process.execPath, [join(DEMO, 'run.mjs')], { env, stdio: ['ignore', 'pipe', 'pipe'] });
    let out = '';
    child.stdout.setEncoding('utf8').on('data', (d: string) => (out += d));
    child.stderr.setEncoding('utf8').on('data', (d: string) => (out += d));
    const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
    expect(code, out).toBe(0);
    const repo = /depending on left-pad-lite \^1\.0\.0 \(.*\): (\S+)/.exec(out)?.[1];
    expect(repo, out).toBeDefined();
    repos.push(repo!);
    const goalId = /^goal (goal_[0-9a-z]+) completed after 1 turn$/m.exec(out)?.[1];
    expect(goalId, out).toBeDefined();
    // Three checks saw 1.0.0, the fourth 2.0.0; only then did the model answer.
    expect(out.indexOf('registry: published left-pad-lite 2.0.0 (request 4)')).toBeGreaterThan(0);
    expect(out.indexOf('→ read: package.json')).toBeGreaterThan(out.indexOf('registry: published'));
    expect(out).toContain(`report wr_${goalId}: matched (value 2.0.0)`);
    expect(out).toMatch(/cr_2 {2}satisfied .* — evidence rcp_[0-9a-f]{16} \(call call_test\)/);
    expect(out).toContain('+    "left-pad-lite": "^2.0.0"');
    const show = await runZuno(['goal', 'show', goalId!, '--json'], { home });
    const snap = (JSON.parse(show.stdout) as { goal: GoalSnapshot }).goal;
    expect(snap.state.status).toBe('completed');
    expect(snap.criteria.map((c) => c.evidence?.receiptId)).toEqual([`wr_${goalId}`, expect.stringMatching(/^rcp_/)]);
    expect(out).toContain(`verified by its receipt ${snap.criteria[1]!.evidence!.receiptId}`);
  }, 180_000);
});
