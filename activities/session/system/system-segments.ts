/**
 * The system segments of one request in order (SE28; the catalogue is
 * docs/prompts.md): `system.base`, `system.family`, `system.agent`,
 * `runtime.read_only`, `runtime.execution`, `runtime.environment`,
 * `runtime.task_context`, `instructions.rules`, `system.goal`,
 * `runtime.goal`, `runtime.work_state`, then the step's extras (MCP state).
 * Static texts first, per-turn facts next, per-step state last, so the
 * prompt prefix stays stable. Shared by the request assembler and
 * `zuno prompt show`; everything store-backed arrives resolved.
 */
import { roleOf } from '../../../core/delegation/contract.js';
import { renderGoalContext } from '../../../core/goal/context.js';
import type { GoalSnapshot } from '../../../core/goal/contract.js';
import { renderEnvironment, type HostFacts } from '../../../core/prompt/environment.js';
import { offersReadOnly, rulesInForce } from '../../../core/prompt/execution.js';
import { renderSeatContext } from '../../../core/prompt/seat.js';
import { SEGMENT_IDS, type PromptSegment } from '../../../core/prompt/segments.js';
import { DEFAULT_SANDBOX_POLICY } from '../../../core/sandbox.js';
import type { SessionMeta } from '../../../core/session/meta.js';
import type { SystemSegment } from '../../../core/messages.js';
import { baseText, executionRuleFiles, familyText, promptText, roleText, type PromptText } from './prompt-files.js';

/** What one request's system segments are made from. */
export interface SystemInputs {
  meta: SessionMeta;
  /** The tool names the request offers, in registry order (built-ins, then `tool_search`, then MCP tools). */
  offered: readonly string[];
  host: HostFacts;
  /** The turn's rule-file segment (SE27), or null. */
  rules: SystemSegment | null;
  /** The Goal driving the session, or null; `continuation` for an automatic continuation turn (GL19). */
  goal: { snapshot: GoalSnapshot; continuation?: { revision: number } } | null;
  /** The work-state segment (GP32), or null. */
  workState: SystemSegment | null;
  /** The step's extra segments (MCP state, MC8). */
  extra?: readonly SystemSegment[];
}

const fromFile = (segment: string, t: PromptText): PromptSegment => ({ segment, source: t.file, text: t.text });

/** The ordered segments of a request (see the module comment); absent segments are left out. */
export function systemSegments(i: SystemInputs): PromptSegment[] {
  const { meta, offered } = i;
  const role = roleOf(meta);
  const family = familyText(meta.provider.transport);
  const roleFile = roleText(role.name);
  const out: PromptSegment[] = [fromFile(SEGMENT_IDS.base, baseText())];
  if (family) out.push(fromFile(SEGMENT_IDS.family, family));
  if (roleFile) out.push(fromFile(SEGMENT_IDS.agent, roleFile));
  const readOnly = readOnlyText(meta, offered);
  if (readOnly) out.push(fromFile(SEGMENT_IDS.readOnly, readOnly));
  out.push(executionSegment(offered));
  // FT8: `runtime.reports` exists only when the request offers `report_write`.
  const reports = promptText('reports.md');
  if (reports && offered.includes('report_write')) out.push(fromFile(SEGMENT_IDS.reports, reports));
  out.push(environmentSegment(meta, offered, i.host));
  const seat = seatSegment(meta);
  if (seat) out.push(seat);
  if (i.rules) out.push({ ...i.rules, source: i.rules.source ?? 'rule files' });
  if (i.goal) {
    const mode = promptText('goal.md');
    if (mode) out.push(fromFile(SEGMENT_IDS.goalMode, mode));
    out.push({
      segment: SEGMENT_IDS.goal,
      source: `goal ${i.goal.snapshot.goalId} revision ${i.goal.snapshot.revision}`,
      text: renderGoalContext(i.goal.snapshot, i.goal.continuation),
    });
  }
  if (i.workState) out.push({ ...i.workState, source: "the session's plan and todo list" });
  for (const e of i.extra ?? []) out.push({ ...e, source: e.source ?? "the session's MCP servers" });
  return out;
}

/**
 * `runtime.read_only` (FT8): what this attempt cannot change — nothing at all
 * when no offered tool writes or runs commands; else, when commands run in a
 * read-only sandbox, that constraint (so a refused write is not read as a
 * read-only disk). Null otherwise.
 */
function readOnlyText(meta: SessionMeta, offered: readonly string[]): PromptText | null {
  if (offersReadOnly(offered)) return promptText('read-only.md');
  const commands = offered.includes('shell') || offered.includes('bg');
  return commands && meta.sandbox?.mode === 'read-only' ? promptText('read-only-shell.md') : null;
}

/** RT8: the execution rules of the offered tools; its source lists the rule files in force. */
function executionSegment(offered: readonly string[]): PromptSegment {
  const rules = rulesInForce(executionRuleFiles(), offered);
  return {
    segment: SEGMENT_IDS.execution,
    source: `generated from the offered tools: prompts/execution/{${rules.map((r) => r.file.replace(/^prompts\/execution\/|\.md$/g, '')).join(',')}}.md`,
    text: rules.map((r) => r.text).join('\n\n'),
  };
}

function environmentSegment(meta: SessionMeta, offered: readonly string[], host: HostFacts): PromptSegment {
  return {
    segment: SEGMENT_IDS.environment,
    source: 'generated from the session settings and the worker host',
    text: renderEnvironment(
      {
        workspace: meta.workspace,
        sandbox: meta.sandbox ?? DEFAULT_SANDBOX_POLICY,
        permissionMode: meta.permission?.mode ?? 'none',
        ...(meta.network ? { network: meta.network } : {}),
        runsCommands: offered.includes('shell') || offered.includes('bg'),
        readsWeb: offered.includes('webfetch') || offered.includes('web_search'),
      },
      host,
    ),
  };
}

/** A Council seat's task context (DC24), from its delegation link; null for every other session. */
function seatSegment(meta: SessionMeta): PromptSegment | null {
  const seat = meta.delegation?.seat;
  const template = promptText('seat.md');
  if (!seat || !template) return null;
  return {
    segment: SEGMENT_IDS.taskContext,
    source: `${template.file} for seat ${seat.index}/${seat.of} of ${seat.runId}`,
    text: renderSeatContext(template.text, seat),
  };
}
