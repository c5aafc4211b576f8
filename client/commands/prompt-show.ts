/**
 * `zuno prompt show [--agent R] [--goal [OBJECTIVE]] [--dir D] [--config F]
 * [--model P/M] [--json]` (issue 32; docs/prompts.md): prints the exact
 * system segments the first request of such a session would carry — ids,
 * sources, sizes, a token estimate — assembled by the same code a worker
 * uses (system-segments.ts), from this machine's view of the workspace:
 * its zuno.json, rule files and git state. Offline: no Temporal, no home.
 */
import {
  estimateTextTokens,
  estimatorFor,
  hostFacts,
  loadRuleFiles,
  offeredBuiltIns,
  segmentReceipts,
  systemSegments,
} from '../../activities/session/index.js';
import { toolOfferSets } from '../../activities/tools/index.js';
import { declaredTools } from '../../core/tools/registry.js';
import { renderRulesSegment, ruleBudgetBytes, rulesSource, RULES_SEGMENT_ID } from '../../core/rule-budget.js';
import type { SystemSegment } from '../../core/messages.js';
import { promptMeta } from '../prompt-meta.js';
import { renderPromptShow, type NotInForce, type PromptShowReport } from '../prompt-view.js';
import { notInForceLine } from './rules-view.js';
import { processSink } from '../render.js';
import type { Sink } from '../sink.js';
import { loadZunoConfig } from '../zuno-config.js';
import { resolveWorkspace } from './run-plan.js';

/** Options of `zuno prompt show`. */
export interface PromptShowOptions {
  agent?: string;
  /** true: a Goal with a placeholder objective; a string: that objective. */
  goal?: boolean | string;
  dir?: string;
  config?: string;
  model?: string;
  json?: boolean;
}

/**
 * Prints the segments (see module doc).
 * @returns 0.
 * @throws ZunoError `workspace_invalid`, `config_invalid` naming the key,
 *   `agent_invalid`, `model_invalid`, `provider_unknown`,
 *   `rule_file_unreadable` (a rule file a turn would stop on).
 */
export async function promptShowCommand(opts: PromptShowOptions, sink: Sink = processSink): Promise<number> {
  const workspace = resolveWorkspace(opts.dir ?? process.cwd());
  const zcfg = loadZunoConfig(workspace, opts.config);
  const nowMs = Date.now();
  const goalObjective = opts.goal === undefined || opts.goal === false ? undefined : goalText(opts.goal);
  const { meta, goal, modelShown } = promptMeta({
    workspace,
    zcfg,
    nowMs,
    ...(opts.agent ? { agent: opts.agent } : {}),
    ...(opts.model ? { model: opts.model } : {}),
    ...(goalObjective !== undefined ? { goalObjective } : {}),
  });
  const rules = await rulesNow(workspace);
  // SE27: a file over the budget is skipped whole, as a turn would, and said so (stderr, beside the segments).
  for (const s of rules.notInForce) sink.err(`${notInForceLine(s)}\n`);
  const offered = offeredBuiltIns(meta, toolOfferSets(), Object.keys(declaredTools)).map((t) => t.name);
  const segments = systemSegments({
    meta,
    offered,
    host: await hostFacts(workspace, nowMs),
    rules: rules.segment,
    goal: goal ? { snapshot: goal } : null,
    workState: null,
  });
  const estimator = estimatorFor(meta.provider.transport);
  const receipts = segmentReceipts(segments);
  const report: PromptShowReport = {
    workspace,
    agent: meta.agent!,
    surface: meta.provider.transport,
    model: modelShown || null,
    estimator: estimator.id,
    tools: offered,
    mcpServers: Object.keys(zcfg.mcp?.servers ?? {}),
    notInForce: rules.notInForce,
    segments: segments.map((s, i) => ({
      ...receipts[i]!,
      tokens: estimateTextTokens(s.text, estimator),
      text: s.text,
    })),
  };
  sink.out(opts.json ? `${JSON.stringify(report, null, 2)}\n` : renderPromptShow(report));
  return 0;
}

/** The objective shown: the one given, else a placeholder. */
function goalText(g: true | string): string {
  return g === true || g.trim() === '' ? '(the Goal objective you give zuno goal start)' : g;
}

/** The rule files a turn starting now would carry (SE27; the budget of an unknown window), and those skipped for it. */
async function rulesNow(workspace: string): Promise<{ segment: SystemSegment | null; notInForce: NotInForce[] }> {
  const files = await loadRuleFiles(workspace, ruleBudgetBytes());
  const text = renderRulesSegment(files.inForce);
  const notInForce = files.skipped.map((s) => ({
    source: s.entry.path,
    bytes: s.bytes,
    budget: s.budget,
    remaining: s.remaining,
  }));
  return {
    segment: text === null ? null : { segment: RULES_SEGMENT_ID, text, source: rulesSource(files.inForce) },
    notInForce,
  };
}
