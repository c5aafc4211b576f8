/**
 * The permission gate's decision for one call (PM1, TD2, TD7, TD8; the
 * SEED-GAP decisions of PM10 are in docs/permissions.md). Pure and
 * deterministic: the session workflow calls it with the subject the modelStep
 * activity computed.
 */
import { isToolName } from '../tools/registry.js';
import type { ToolEffect } from '../tools/types.js';
import { exactPattern, globMatch } from './glob.js';
import { describeRule, lastMatchingRule } from './rules.js';
import { shellVerdicts } from './shell-verdicts.js';
import type {
  CallSubject,
  PermissionAction,
  PermissionCall,
  PermissionDecision,
  PermissionPolicy,
  SessionGrant,
} from './types.js';

const SEVERITY: Readonly<Record<PermissionAction, number>> = { allow: 0, ask: 1, deny: 2 };

/** One subject's verdict. */
interface Verdict {
  action: PermissionAction;
  reason: string;
  text: string;
}

/** The texts rules match for a subject, each once; `['']` when there is none. */
export function subjectTexts(subject: CallSubject): string[] {
  const texts =
    subject.kind === 'paths'
      ? subject.paths
      : subject.kind === 'commands'
        ? [...subject.commands, ...(subject.unwrapped ?? [])]
        : subject.kind === 'url'
          ? [subject.url]
          : [];
  const unique = [...new Set(texts)];
  return unique.length > 0 ? unique : [''];
}

function strictReason(tool: string, effect: ToolEffect, known: boolean): string {
  if (!known) return `strict mode: ${tool} is not a declared tool, so it counts as changing things`;
  if (effect === 'Delegating') return `strict mode: ${tool} delegates work (each child call is checked again)`;
  return `strict mode: ${tool} changes things`;
}

/** The verdict for one subject text, before session grants. */
function verdictOf(policy: PermissionPolicy, call: PermissionCall, effect: ToolEffect, known: boolean, text: string) {
  const rule = lastMatchingRule(policy.rules, call.tool, text, call.subject.kind === 'paths');
  const ruleVerdict = (action: PermissionAction, reason: string): Omit<Verdict, 'text'> => ({ action, reason });
  if (rule?.action === 'deny') return ruleVerdict('deny', describeRule(rule));
  if (effect === 'UserMediated') {
    return ruleVerdict('allow', `${call.tool} asks you itself: not an approval surface`);
  }
  if (policy.mode === 'allow_all') {
    if (rule?.action === 'allow') return ruleVerdict('allow', describeRule(rule));
    return ruleVerdict(
      'allow',
      rule ? `allow_all mode: nothing asks (${describeRule(rule)})` : 'allow_all mode: nothing asks',
    );
  }
  if (policy.mode === 'strict' && (effect === 'SideEffecting' || effect === 'Delegating')) {
    return ruleVerdict('ask', strictReason(call.tool, effect, known));
  }
  if (rule) return ruleVerdict(rule.action, describeRule(rule));
  if (!known) return ruleVerdict('ask', `${call.tool} is not a declared tool: it asks (fail closed)`);
  return ruleVerdict('allow', `no rule for ${call.tool}: allowed`);
}

/** true when `grant` covers subject `text` of `call`: a `call` grant matches the call's whole text, an older grant the subject text. */
function grantCovers(grant: SessionGrant, call: PermissionCall, text: string): boolean {
  if (grant.scope === 'call') return call.text !== undefined && globMatch(grant.pattern, call.text);
  return globMatch(grant.pattern, text);
}

/**
 * Decides one call.
 *
 * Every subject text (a path, a simple command; the empty text for a call
 * without a subject) gets its own verdict and the call gets the most
 * restrictive one (deny > ask > allow). Per subject: the last matching rule
 * (rules.ts); a `deny` is terminal in every mode; a UserMediated call never
 * asks (TD2); `allow_all` asks nothing; `strict` asks for every SideEffecting
 * or Delegating call whatever allow rule matched (TD2, PM3), ReadOnly calls
 * are decided as in `standard`; `standard` follows the rule, no rule allows.
 * A tool that is not declared (`core/tools/registry.ts`) is SideEffecting
 * whatever `call.effect` says, and with no rule it asks even in `standard`
 * (TD2 fail closed). A shell call's writes and dynamic parts add their own
 * verdicts first (shell-verdicts.ts, issue 26: writes meet the `edit` rules,
 * what cannot be named statically fails closed). An `ask` becomes `allow`
 * when a grant of the same tool covers it (a `call` grant: the call's whole
 * text `call.text`; an older grant: that subject); grants never touch a deny.
 *
 * @param policy the mode and rules (client/permission-config.ts parses them).
 * @param call the tool name, its TD1 effect (effect.ts `callEffect`) and its subject.
 * @param grants the session's "approve for this session" grants.
 * @returns action, reason, subjectText and, for `ask`, the grant patterns an
 *   approval for the session would store (exact subject texts). Never throws.
 */
export function evaluatePermission(
  policy: PermissionPolicy,
  call: PermissionCall,
  grants: readonly SessionGrant[],
): PermissionDecision {
  const known = isToolName(call.tool) || call.declared === true;
  const effect: ToolEffect = known ? call.effect : 'SideEffecting';
  const ruled: Verdict[] = [
    ...shellVerdicts(policy, call.tool, call.subject),
    ...subjectTexts(call.subject).map((text) => ({ ...verdictOf(policy, call, effect, known, text), text })),
  ];
  const verdicts: Verdict[] = ruled.map(({ text, ...v }) => {
    if (v.action === 'ask') {
      const grant = grants.find((g) => g.tool === call.tool && grantCovers(g, call, text));
      if (grant)
        return {
          action: 'allow',
          reason: `approved for this session (${call.tool} ${JSON.stringify(grant.pattern)})`,
          text,
        };
    }
    return { ...v, text };
  });
  const worst = verdicts.reduce((a, b) => (SEVERITY[b.action] > SEVERITY[a.action] ? b : a));
  const decisive = verdicts.filter((v) => v.action === worst.action);
  const subjectText = decisive.map((v) => (v.text === '' ? call.tool : v.text)).join('; ');
  if (worst.action !== 'ask') return { action: worst.action, reason: worst.reason, subjectText };
  const grantPatterns = decisive.map((v) => exactPattern(v.text));
  return { action: 'ask', reason: worst.reason, subjectText, grantPattern: grantPatterns[0]!, grantPatterns };
}
