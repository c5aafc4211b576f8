/**
 * Shared by the Council tests: a git workspace with a reviewed change, a
 * scripted Council started from a client, and readers of what the provider
 * saw and what the history holds.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client, WorkflowHandle } from '@temporalio/client';
import { DEFAULT_ACTIVITY_DEFAULTS, type ActivityDefaults } from '../../core/activity-defaults.js';
import type { CouncilResult, CouncilWorkflowInput } from '../../core/council/contract.js';
import type { SessionMeta, SessionRoute } from '../../core/session/meta.js';
import { newCouncilRunId, startCouncil } from '../../client/council-start.js';
import { startLocalProvider, type CapturedRequest } from '../../local-provider/server.js';
import type { Script, ScriptReply } from '../../local-provider/script.js';
import { localProvider } from '../../client/zuno-config.js';

/** A workspace that is a git repository with two commits: `HEAD~1..HEAD` changes `src/range.js`. */
export function gitWorkspace(): string {
  const ws = mkdtempSync(join(tmpdir(), 'zuno-council-ws-'));
  const git = (...args: string[]) =>
    execFileSync('git', args, {
      cwd: ws,
      env: {
        ...process.env,
        GIT_AUTHOR_NAME: 't',
        GIT_AUTHOR_EMAIL: 't@example.invalid',
        GIT_COMMITTER_NAME: 't',
        GIT_COMMITTER_EMAIL: 't@example.invalid',
      },
    });
  git('init', '-q', '-b', 'main');
  mkdirSync(join(ws, 'src'));
  writeFileSync(join(ws, 'src', 'range.js'), 'export const range = (n) => [...Array(n).keys()];\n');
  git('add', '.');
  git('commit', '-q', '-m', 'one');
  writeFileSync(
    join(ws, 'src', 'range.js'),
    'export const range = (n) => {\n  const out = [];\n  for (let i = 0; i <= n; i++) out.push(i);\n  return out;\n};\n',
  );
  git('commit', '-q', '-am', 'two');
  return ws;
}

/** A seat's final answer holding a valid report with one finding. */
export function validReport(file: string, line: number, claim: string): ScriptReply {
  const report = {
    summary: `Checked ${file}.`,
    findings: [{ severity: 'high', file, line, claim, evidence: `${file}:${line}` }],
    unknowns: ['did not run the tests'],
  };
  return { text: `Here is my report.\n\n\`\`\`json\n${JSON.stringify(report)}\n\`\`\`\n` };
}

/** Replies that never let the seat finish: every request is answered 401, so its session pauses (provider_auth) and waits for a resume that never comes. */
export const NEVER_FINISHES: ScriptReply[] = [{ fault: { status: 401, times: 1000 } }];

/** The script thread of seat `agent`'s attempt `attempt` (the seat prompt's first line names both). */
export function seatThread(agent: string, attempt: number, replies: ScriptReply[]) {
  return { match: `${agent} · attempt ${attempt}/`, replies };
}

/** The synthesis thread. */
export function synthesisThread(text: string) {
  return { match: 'Council synthesis for the balanced-review preset', replies: [{ text }] };
}

/** A scripted Council just started. */
export interface StartedCouncil {
  runId: string;
  workflowId: string;
  handle: WorkflowHandle;
  providerRequests: CapturedRequest[];
  result(): Promise<CouncilResult>;
  closeProvider(): Promise<void>;
}

/** The base meta of a scripted Council (the local provider at `url`, no route unless given). */
export function scriptedBase(
  runId: string,
  workspace: string,
  url: string,
  route?: SessionRoute,
  activityDefaults: ActivityDefaults = DEFAULT_ACTIVITY_DEFAULTS,
): SessionMeta {
  const p = localProvider(url);
  return {
    sessionId: runId,
    workspace,
    provider: { ...p, retry: { ...p.retry, initialDelayMs: 100 } },
    model: 'scripted',
    title: 'council',
    toolConcurrency: 8,
    activityDefaults,
    ...(route ? { route } : {}),
  };
}

/** Starts a Council served by the local provider with `script` (threads per seat and the synthesis). */
export async function startScriptedCouncil(
  client: Client,
  taskQueue: string,
  o: {
    workspace: string;
    script: Script;
    question?: string;
    diffRange?: string;
    route?: SessionRoute;
    activityDefaults?: ActivityDefaults;
  },
): Promise<StartedCouncil> {
  const provider = await startLocalProvider({ script: o.script });
  const runId = newCouncilRunId();
  const input: CouncilWorkflowInput = {
    runId,
    question: o.question ?? 'Is this change correct, safe and tested?',
    ...(o.diffRange !== undefined ? { diffRange: o.diffRange } : { diffRange: 'HEAD~1..HEAD' }),
    preset: 'balanced-review',
    base: scriptedBase(runId, o.workspace, provider.url, o.route, o.activityDefaults),
  };
  const handle = await startCouncil(client, taskQueue, input).catch(async (err) => {
    await provider.close();
    throw err;
  });
  return {
    runId,
    workflowId: handle.workflowId,
    handle,
    providerRequests: provider.requests,
    result: () => handle.result() as Promise<CouncilResult>,
    closeProvider: () => provider.close(),
  };
}

/** The first user message's text of a captured Chat Completions request. */
export function firstUserText(r: CapturedRequest): string {
  const m = (r.messages ?? []).find((x) => x.role === 'user');
  return typeof m?.content === 'string' ? m.content : '';
}

/** Activity types the workflow scheduled, with their scheduled/completed workflow times (ms), in order. */
export async function activitiesOf(
  client: Client,
  workflowId: string,
): Promise<{ type: string; scheduledAtMs: number; closedAtMs?: number }[]> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  const at = (t: { seconds?: unknown; nanos?: number | null } | null | undefined) =>
    Number(t?.seconds ?? 0) * 1000 + Math.floor((t?.nanos ?? 0) / 1e6);
  const out: { type: string; scheduledAtMs: number; closedAtMs?: number; id: number }[] = [];
  for (const e of events) {
    const a = e.activityTaskScheduledEventAttributes;
    if (a) out.push({ type: a.activityType!.name!, scheduledAtMs: at(e.eventTime), id: Number(e.eventId) });
    const done = e.activityTaskCompletedEventAttributes ?? e.activityTaskFailedEventAttributes;
    if (done) {
      const s = out.find((x) => x.id === Number(done.scheduledEventId));
      if (s) s.closedAtMs = at(e.eventTime);
    }
  }
  return out.map(({ id: _id, ...rest }) => rest);
}

/** Child workflows the workflow started, by workflow id, in order. */
export async function childrenOf(client: Client, workflowId: string): Promise<string[]> {
  const events = (await client.workflow.getHandle(workflowId).fetchHistory()).events ?? [];
  return events
    .map((e) => e.startChildWorkflowExecutionInitiatedEventAttributes?.workflowId)
    .filter((x): x is string => typeof x === 'string');
}
