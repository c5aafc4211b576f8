/**
 * The tool-agnostic projection of the steps a compaction summarizes (CP5,
 * CP14): bounded inert text for a request that offers no tools. Each step
 * is a block of role-labelled lines; a tool call and its result are two
 * adjacent JSON lines (never the native function protocol); long texts keep
 * a head and a tail around a marked gap; a reasoning part contributes only
 * its visible text, labelled historical — an encrypted capsule
 * (`providerReasoning`) never enters. A result names the verification
 * receipts (`rcp_…`) its whole output holds, cut or not. When the whole record is too long,
 * whole steps are left out of the middle (boundaries only between steps).
 */
import type { PartRow, ToolCallRow } from '../../projection/types.js';
import type { StepRows } from './steps.js';

/** Character bounds of the projection. */
export interface ProjectionLimits {
  /** A user or assistant text part. */
  textChars: number;
  /** A tool call's arguments. */
  argsChars: number;
  /** A tool call's output. */
  outputChars: number;
  /** A reasoning part's visible text. */
  reasoningChars: number;
  /** The whole projected record. */
  totalChars: number;
}

/** Default bounds (docs/compaction.md "The summary"). */
export const PROJECTION_LIMITS: ProjectionLimits = {
  textChars: 6_000,
  argsChars: 1_500,
  outputChars: 3_000,
  reasoningChars: 1_500,
  totalChars: 240_000,
};

/** `12345` → `12 345` (groups of three, space-separated). */
function grouped(n: number): string {
  return String(n).replace(/\B(?=(\d{3})+(?!\d))/g, ' ');
}

/**
 * `text` cut to about `max` characters: its head (⅔) and tail (⅓) around
 * the marker `…[N chars omitted]…`; unchanged when it fits.
 */
export function fragment(text: string, max: number): string {
  if (text.length <= max) return text;
  const head = Math.ceil((max * 2) / 3);
  const tail = Math.max(0, max - head);
  const omitted = text.length - head - tail;
  return `${text.slice(0, head)}…[${grouped(omitted)} chars omitted]…${tail > 0 ? text.slice(-tail) : ''}`;
}

/** `[verification rcp_…]` receipt lines (SH3) of a tool output: evidence a shortened output must not lose. */
export function receiptLines(text: string): string[] {
  return text.match(/^\[verification rcp_[^\]\s]+\][^\n]*$/gm) ?? [];
}

/** The JSON line of a call, then the JSON line of its result (inert text; CP14). */
function callLines(row: ToolCallRow, l: ProjectionLimits): string[] {
  const call = { call: row.callId, tool: row.tool, row: row.id, arguments: fragment(row.argsJson, l.argsChars) };
  const result: Record<string, unknown> = { result_of: row.callId, tool: row.tool, status: row.status };
  if (row.outcome) result.outcome = row.outcome;
  if (row.errorCode) result.error_code = row.errorCode;
  result.output = row.output == null ? '(no result recorded)' : fragment(row.output, l.outputChars);
  const receipts = row.output ? receiptLines(row.output).map((r) => /rcp_[^\]\s]+/.exec(r)![0]) : [];
  if (receipts.length > 0) result.receipts = receipts;
  return [`tool call: ${JSON.stringify(call)}`, `tool result: ${JSON.stringify(result)}`];
}

/** One part as labelled lines ([] when it contributes nothing). */
function partLines(p: PartRow, role: string | undefined, calls: Map<string, ToolCallRow>, l: ProjectionLimits) {
  const text = p.text ?? '';
  if (p.kind === 'text' && role === 'user') return [`user: ${fragment(text, l.textChars)}`];
  if (p.kind === 'text') return text === '' ? [] : [`assistant: ${fragment(text, l.textChars)}`];
  // Only the visible reasoning text; the capsule in p.metadata is never read (CP5).
  if (p.kind === 'reasoning')
    return text.trim() === '' ? [] : [`assistant reasoning (historical): ${fragment(text, l.reasoningChars)}`];
  if (p.kind === 'tool_call' && p.toolCallId) {
    const row = calls.get(p.toolCallId);
    return row ? callLines(row, l) : [];
  }
  return [];
}

/** One step as a block of labelled lines. */
export function projectStep(step: StepRows, limits: ProjectionLimits = PROJECTION_LIMITS): string {
  const roles = new Map(step.rows.messages.map((m) => [m.id, m.role]));
  const calls = new Map(step.rows.toolCalls.map((c) => [c.id, c]));
  const lines = [`## step ${step.key.turn}.${step.key.step}`];
  for (const p of step.rows.parts) lines.push(...partLines(p, roles.get(p.messageId), calls, limits));
  const block = lines.join('\n');
  return fragment(block, Math.floor(limits.totalChars / 4));
}

/**
 * The record of `steps` (in order) as inert text within `limits.totalChars`:
 * every step's block; when too long, the first steps and the last ones with
 * one marker line for the whole steps left out between them.
 */
export function projectSteps(steps: readonly StepRows[], limits: ProjectionLimits = PROJECTION_LIMITS): string {
  const blocks = steps.map((s) => projectStep(s, limits));
  const total = blocks.reduce((n, b) => n + b.length + 2, 0);
  if (total <= limits.totalChars) return blocks.join('\n\n');
  const head: string[] = [];
  let used = 0;
  let i = 0;
  for (; i < blocks.length && used + blocks[i]!.length + 2 <= limits.totalChars / 3; i++) {
    head.push(blocks[i]!);
    used += blocks[i]!.length + 2;
  }
  const tail: string[] = [];
  let j = blocks.length - 1;
  for (; j >= i && used + blocks[j]!.length + 2 <= limits.totalChars; j--) {
    tail.unshift(blocks[j]!);
    used += blocks[j]!.length + 2;
  }
  const left = j - i + 1;
  const marker = `[… ${left} step${left === 1 ? '' : 's'} left out here: the record was too long …]`;
  return [...head, ...(left > 0 ? [marker] : []), ...tail].join('\n\n');
}
