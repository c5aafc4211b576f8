/**
 * What the system segments cost (issue 32; prints figures, asserts nothing):
 * - the host facts of a turn (`git symbolic-ref`, `git status`, the PATH scan
 *   once per process) on this repository, per turn;
 * - assembling the segments of a build, plan and Goal request from the
 *   `prompts/` texts (no I/O once the texts are read), per request;
 * - their size: characters and o200k_base tokens per segment, and the bytes
 *   a step's `session.prompt` receipt adds to the event table.
 *
 *   npx tsx bench/prompt-assembly.ts --turns 20 --requests 2000
 */
import { performance } from 'node:perf_hooks';
import {
  estimateTextTokens,
  estimatorFor,
  hostFacts,
  offeredBuiltIns,
  segmentReceipts,
  systemSegments,
} from '../activities/session/index.js';
import { toolOfferSets } from '../activities/tools/index.js';
import { localProvider } from '../client/zuno-config.js';
import { DEFAULT_ACTIVITY_DEFAULTS } from '../core/activity-defaults.js';
import { agentRole, catalogFor } from '../core/agents.js';
import type { SessionMeta } from '../core/session/meta.js';
import { declaredTools } from '../core/tools/registry.js';
import { goalSnapshot } from '../test/goal/snapshot.js';
import { badArgument, benchFlags } from './worker-procs.js';

const HELP = `usage: npx tsx bench/prompt-assembly.ts [options]

  --turns <N>      host-fact gatherings measured (default 20)
  --requests <N>   segment assemblies measured per case (default 2000)
  -h, --help       show this help`;

const flags = benchFlags(HELP, {
  turns: { type: 'string', default: '20' },
  requests: { type: 'string', default: '2000' },
});
const count = (name: 'turns' | 'requests') => {
  const n = Number(flags[name]);
  if (!Number.isInteger(n) || n < 1) badArgument(`--${name} must be a positive integer (got ${flags[name]})`);
  return n;
};

const ALL = Object.keys(declaredTools);
const workspace = process.cwd();
const base: SessionMeta = {
  sessionId: 'ses_bench',
  workspace,
  provider: localProvider('http://127.0.0.1:1'),
  model: 'bench',
  title: 'bench',
  toolConcurrency: 8,
  activityDefaults: DEFAULT_ACTIVITY_DEFAULTS,
};

const t0 = performance.now();
let host = await hostFacts(workspace, Date.now());
const first = performance.now() - t0;
const turns = count('turns');
const t1 = performance.now();
for (let i = 0; i < turns; i++) host = await hostFacts(workspace, Date.now());
console.log(
  `host facts of a turn: first ${first.toFixed(1)} ms (PATH scan included), then ${((performance.now() - t1) / turns).toFixed(1)} ms per turn (${turns} turns, git ${host.git ? `branch ${host.git.branch}, ${host.git.changedFiles} changed` : 'none'})`,
);

const cases: { name: string; meta: SessionMeta; goal: boolean }[] = [
  { name: 'build', meta: base, goal: false },
  {
    name: 'plan',
    meta: { ...base, agent: 'plan', tools: catalogFor(agentRole('plan')!, ALL, undefined, false) },
    goal: false,
  },
  { name: 'goal', meta: { ...base, goal: { goalId: 'goal_x' } }, goal: true },
];
const requests = count('requests');
const estimator = estimatorFor('chat-completions');
for (const c of cases) {
  const offered = offeredBuiltIns(c.meta, toolOfferSets(), ALL).map((t) => t.name);
  const inputs = {
    meta: c.meta,
    offered,
    host,
    rules: null,
    goal: c.goal ? { snapshot: goalSnapshot() } : null,
    workState: null,
  };
  let segments = systemSegments(inputs);
  const t = performance.now();
  for (let i = 0; i < requests; i++) segments = systemSegments(inputs);
  const perMs = (performance.now() - t) / requests;
  const receipt = segmentReceipts(segments);
  const receiptBytes = Buffer.byteLength(
    JSON.stringify({ turn: 0, step: 0, attempt: 1, sha256: 'x'.repeat(64), segments: receipt, tools: offered }),
  );
  const chars = segments.reduce((a, s) => a + s.text.length, 0);
  const tokens = segments.reduce((a, s) => a + estimateTextTokens(s.text, estimator), 0);
  console.log(
    `${c.name}: ${segments.length} segments, ${chars} chars, ≈ ${tokens} tokens; assembled in ${(perMs * 1000).toFixed(0)} µs; receipt ${receiptBytes} bytes per step`,
  );
  for (const s of segments)
    console.log(
      `  ${s.segment.padEnd(22)} ${String(s.text.length).padStart(6)} chars  ≈ ${estimateTextTokens(s.text, estimator)} tokens`,
    );
}
