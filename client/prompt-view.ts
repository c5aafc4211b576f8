/**
 * How `zuno prompt show` prints the segments (issue 32): a heading with the
 * role, family and totals, then each segment under a rule line naming its
 * id, source, size and token estimate, then its exact text.
 */
import type { SegmentReceipt } from '../core/prompt/segments.js';

/** What `prompt show` reports (`--json` prints it as is). */
export interface PromptShowReport {
  workspace: string;
  agent: string;
  /** The provider family (wire surface) the request is placed for. */
  surface: string;
  /** `provider/model`, or null when none is configured. */
  model: string | null;
  /** The tokenizer the estimates come from. */
  estimator: string;
  /** The built-in tools the request offers, in order. */
  tools: string[];
  /** MCP servers configured (their tools and state segment appear once connected). */
  mcpServers: string[];
  /** Rule files skipped whole for the budget (SE27), as a turn's `instruction.not_in_force` notices say. */
  notInForce: NotInForce[];
  segments: (SegmentReceipt & { tokens: number; text: string })[];
}

/** A rule file over the budget: its path, size, the budget and what was left of it (bytes). */
export interface NotInForce {
  source: string;
  bytes: number;
  budget: number;
  remaining: number;
}

const n = (x: number) => x.toLocaleString('en-US');

/** The human-readable report. */
export function renderPromptShow(r: PromptShowReport): string {
  const chars = r.segments.reduce((a, s) => a + s.chars, 0);
  const tokens = r.segments.reduce((a, s) => a + s.tokens, 0);
  const model = r.model ? `model ${r.model}` : 'no model configured';
  const lines = [
    `System prompt of a ${r.agent} session in ${r.workspace}`,
    `${r.surface} family (${model}) · ${r.segments.length} segments · ${n(chars)} chars · ≈ ${n(tokens)} tokens (${r.estimator})`,
    `Tools offered: ${r.tools.join(', ')}`,
    ...(r.mcpServers.length
      ? [`MCP servers (${r.mcpServers.join(', ')}) add their tools and a runtime.mcp segment once connected.`]
      : []),
    '',
  ];
  r.segments.forEach((s, i) => {
    lines.push(`── ${i + 1}. ${s.id} · ${s.source} · ${n(s.chars)} chars · ≈ ${n(s.tokens)} tokens`, s.text, '');
  });
  return `${lines.join('\n')}\n`;
}
