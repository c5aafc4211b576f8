import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import type { ApprovalRow } from '../../activities/projection/types.js';
import { grantWords, partsLine, subjectBlock, subjectCell } from '../../client/approval-words.js';
import { subjectDigestOf } from '../../client/approvals.js';
import { describeDecision, renderApprovals } from '../../client/commands/approvals.js';
import type { ApprovalDecisionRequest, PendingApproval } from '../../core/approval-contract.js';
import { evaluatePermission } from '../../core/permission/evaluate.js';
import { exactPattern } from '../../core/permission/glob.js';
import { shownSubject } from '../../core/permission/shown.js';
import type { CallSubject, SessionGrant } from '../../core/permission/types.js';
import { sha256Hex } from '../../core/sha256.js';
import { ApprovalBook } from '../../workflows/approvals.js';
import { approvalLine, standInText } from '../../workflows/permission-gate.js';

/**
 * Issue 26 items 1 and 3, the pure parts: what an approval shows is the
 * command that runs (full text, parsed parts), a decision is bound to that
 * text by its digest, and a session-wide grant covers exactly that text or a
 * typed pattern — while grants stored before keep their per-command meaning.
 */
const cmd = (...commands: string[]): CallSubject => ({ kind: 'commands', commands });
const STRICT = { mode: 'strict' as const, rules: [] };
const shell = (command: string, subject: CallSubject) => ({
  tool: 'shell',
  effect: 'SideEffecting' as const,
  subject,
  text: shownSubject('shell', { command }, subject).text,
});

describe('shownSubject: the full text as sent, and its parts', () => {
  it('a shell call shows its whole command — redirections, lists, heredocs — and the simple commands as parts', () => {
    expect(shownSubject('shell', { command: 'echo hello > note.txt && ls' }, cmd('echo hello', 'ls'))).toEqual({
      kind: 'command',
      text: 'echo hello > note.txt && ls',
      parts: ['echo hello', 'ls'],
    });
    // The files it writes follow the commands (issue 26 item 2).
    expect(
      shownSubject(
        'shell',
        { command: 'echo hello > note.txt && ls' },
        {
          kind: 'commands',
          commands: ['echo hello', 'ls'],
          writes: ['note.txt'],
        },
      ).parts,
    ).toEqual(['echo hello', 'ls', 'writes note.txt']);
    const heredoc = "cat <<'EOF' > a.txt\none\ntwo\nEOF";
    expect(shownSubject('shell', { command: heredoc }, cmd('cat')).text).toBe(heredoc);
  });

  it('file tools show their paths; a call without a subject its tool name; args left in the projection the parts', () => {
    expect(shownSubject('write', { path: './src/a.ts', content: 'x' }, { kind: 'paths', paths: ['src/a.ts'] })).toEqual(
      { kind: 'paths', text: 'src/a.ts', parts: ['src/a.ts'] },
    );
    expect(shownSubject('todo_update', {}, { kind: 'none' })).toEqual({ kind: 'none', text: 'todo_update', parts: [] });
    expect(shownSubject('shell', undefined, cmd('echo hi', 'ls'))).toMatchObject({
      kind: 'paths',
      text: 'echo hi; ls',
    });
  });
});

describe('grants of scope call: exactly the text shown, or a typed pattern', () => {
  const exact = (text: string): SessionGrant => ({ tool: 'shell', pattern: exactPattern(text), scope: 'call' });

  it('approving `echo hello > note.txt` for the session does not admit `echo hello > index.js`', () => {
    const grants = [exact('echo hello > note.txt')];
    expect(evaluatePermission(STRICT, shell('echo hello > note.txt', cmd('echo hello')), grants).action).toBe('allow');
    expect(evaluatePermission(STRICT, shell('echo hello > index.js', cmd('echo hello')), grants).action).toBe('ask');
    expect(
      evaluatePermission(STRICT, shell('echo hello > note.txt; rm x', cmd('echo hello', 'rm x')), grants).action,
    ).toBe('ask');
  });

  it('a typed pattern covers what it matches of the whole text; a grant never lifts a deny', () => {
    const grants: SessionGrant[] = [{ tool: 'shell', pattern: 'echo hello > *.txt', scope: 'call' }];
    expect(evaluatePermission(STRICT, shell('echo hello > b.txt', cmd('echo hello')), grants).action).toBe('allow');
    expect(evaluatePermission(STRICT, shell('echo hello > b.js', cmd('echo hello')), grants).action).toBe('ask');
    const deny = { mode: 'strict' as const, rules: [{ tool: 'shell', pattern: 'echo*', action: 'deny' as const }] };
    expect(evaluatePermission(deny, shell('echo hello > b.txt', cmd('echo hello')), grants).action).toBe('deny');
  });

  it('a call grant without the call text matches nothing; an older per-command grant keeps matching each command', () => {
    const grants = [exact('echo hello > note.txt')];
    expect(
      evaluatePermission(STRICT, { tool: 'shell', effect: 'SideEffecting', subject: cmd('echo hello') }, grants).action,
    ).toBe('ask');
    const old: SessionGrant[] = [{ tool: 'shell', pattern: 'echo hello' }];
    expect(evaluatePermission(STRICT, shell('echo hello > index.js', cmd('echo hello')), old).action).toBe('allow');
  });
});

describe('where a command runs is part of the text approved', () => {
  const inDir = (command: string, workdir: string | undefined, subject: CallSubject) => ({
    tool: 'shell',
    effect: 'SideEffecting' as const,
    subject,
    text: shownSubject('shell', workdir === undefined ? { command } : { command, workdir }, subject).text,
  });

  it('shows the workdir in front of the command; the root shows the command alone', () => {
    const writes = { kind: 'commands' as const, commands: ['echo x'], writes: ['pub/k'] };
    expect(shownSubject('shell', { command: 'echo x > k', workdir: 'pub' }, writes)).toEqual({
      kind: 'command',
      text: '(in "pub") echo x > k',
      parts: ['echo x', 'writes pub/k'],
    });
    expect(shownSubject('shell', { command: 'echo x > k', workdir: '.' }, cmd('echo x')).text).toBe('echo x > k');
    expect(shownSubject('shell', { command: 'echo x > k' }, cmd('echo x')).text).toBe('echo x > k');
    // a root command that looks like the marker cannot pose as a command run elsewhere
    expect(shownSubject('shell', { command: '(in "pub") echo x > k' }, cmd('in')).text).toBe(
      '(in ".") (in "pub") echo x > k',
    );
  });

  it('a session grant of `echo x > k` in pub/ does not cover the same text in secrets/ or at the root', () => {
    const approved = inDir('echo x > k', 'pub', cmd('echo x')).text;
    const grants = [{ tool: 'shell', pattern: exactPattern(approved), scope: 'call' as const }];
    expect(evaluatePermission(STRICT, inDir('echo x > k', 'pub', cmd('echo x')), grants).action).toBe('allow');
    expect(evaluatePermission(STRICT, inDir('echo x > k', 'secrets', cmd('echo x')), grants).action).toBe('ask');
    expect(evaluatePermission(STRICT, inDir('echo x > k', undefined, cmd('echo x')), grants).action).toBe('ask');
    const atRoot = [{ tool: 'shell', pattern: exactPattern('echo x > k'), scope: 'call' as const }];
    expect(evaluatePermission(STRICT, inDir('echo x > k', 'secrets', cmd('echo x')), atRoot).action).toBe('ask');
  });
});

function pending(over: Partial<PendingApproval> = {}): Omit<PendingApproval, 'revision'> {
  const text = 'echo hello > note.txt && ls';
  return {
    approvalId: 'ap_0_0_0',
    rowId: 'tc_0_0_0',
    callId: 'call_1',
    tool: 'shell',
    subjectText: text,
    subjectKind: 'command',
    subjectParts: ['echo hello', 'ls'],
    subjectDigest: sha256Hex(text),
    reason: 'strict mode: shell changes things',
    grantPatterns: [exactPattern(text)],
    grantScope: 'call',
    turn: 0,
    step: 0,
    requestedAtMs: 0,
    ...over,
  };
}

const req = (over: Partial<ApprovalDecisionRequest>): ApprovalDecisionRequest => ({
  approvalId: 'ap_0_0_0',
  commandId: 'c1',
  expectedRevision: 1,
  decision: 'approve_once',
  ...over,
});

describe('ApprovalBook: a decision is bound to the text shown', () => {
  it("the client's digest equals the workflow's", () => {
    const text = "cat <<'EOF' > a\né 😀\nEOF";
    expect(subjectDigestOf(text)).toBe(sha256Hex(text));
    expect(subjectDigestOf(text)).toBe(createHash('sha256').update(text).digest('hex'));
  });

  it("another command's digest, or none, is refused approval_subject_mismatch; the right one decides", () => {
    const book = new ApprovalBook();
    book.ask(pending());
    expect(() => book.validate(req({ subjectDigest: sha256Hex('echo hello; ls') }))).toThrow(
      expect.objectContaining({ type: 'approval_subject_mismatch' }),
    );
    expect(() => book.validate(req({}))).toThrow(expect.objectContaining({ type: 'approval_subject_mismatch' }));
    expect(() => book.validate(req({ subjectDigest: 'not hex' }))).toThrow(
      expect.objectContaining({ type: 'approval_invalid' }),
    );
    const ok = req({ decision: 'approve_session', subjectDigest: sha256Hex('echo hello > note.txt && ls') });
    book.validate(ok);
    expect(book.decide(ok).grant).toEqual({ tool: 'shell', pattern: 'echo hello > note.txt && ls', scope: 'call' });
    expect(book.grants()).toEqual([{ tool: 'shell', pattern: 'echo hello > note.txt && ls', scope: 'call' }]);
  });

  it('an approval asked before issue 26 (no digest) is decided without one, or with the digest of its own text; its grants stay per command', () => {
    const book = new ApprovalBook();
    book.ask(
      pending({
        subjectText: 'echo hello; ls',
        subjectDigest: undefined,
        subjectParts: undefined,
        subjectKind: undefined,
        grantPatterns: ['echo hello', 'ls'],
        grantScope: undefined,
      }),
    );
    expect(() => book.validate(req({ subjectDigest: sha256Hex('echo hello > note.txt && ls') }))).toThrow(
      expect.objectContaining({ type: 'approval_subject_mismatch' }),
    );
    expect(() => book.validate(req({ decision: 'approve_session', pattern: 'echo *' }))).toThrow(
      expect.objectContaining({ type: 'approval_invalid' }),
    );
    book.validate(req({ decision: 'approve_session', subjectDigest: sha256Hex('echo hello; ls') }));
    book.validate(req({ decision: 'approve_session' }));
    book.decide(req({ decision: 'approve_session' }));
    expect(book.grants()).toEqual([
      { tool: 'shell', pattern: 'echo hello' },
      { tool: 'shell', pattern: 'ls' },
    ]);
  });

  it('a typed pattern must cover the call it approves, and goes with approve_session only', () => {
    const book = new ApprovalBook();
    book.ask(pending());
    const digest = sha256Hex('echo hello > note.txt && ls');
    expect(() => book.validate(req({ decision: 'approve_session', subjectDigest: digest, pattern: 'rm *' }))).toThrow(
      expect.objectContaining({ type: 'approval_invalid' }),
    );
    expect(() => book.validate(req({ subjectDigest: digest, pattern: 'echo *' }))).toThrow(
      expect.objectContaining({ type: 'approval_invalid' }),
    );
    const typed = req({ decision: 'approve_session', subjectDigest: digest, pattern: 'echo hello > *' });
    book.validate(typed);
    expect(book.decide(typed).grant).toEqual({ tool: 'shell', pattern: 'echo hello > *', scope: 'call' });
  });
});

describe('what people read', () => {
  const row: ApprovalRow = {
    sessionId: 'ses_a',
    id: 'ap_0_0_0',
    rowId: 'tc_0_0_0',
    callId: 'call_1',
    tool: 'shell',
    subjectText: "cat <<'EOF' > note.txt\nhello \u001b[2J\nEOF\necho done && ls",
    subjectKind: 'command',
    subjectParts: ['cat', 'echo done', 'ls'],
    subjectDigest: null,
    reason: 'strict mode: shell changes things',
    grantPattern: null,
    grantScope: 'call',
    revision: 1,
    status: 'pending',
    decision: null,
    commandId: null,
    message: null,
    turn: 0,
    step: 0,
    requestedAtMs: 0,
    decidedAtMs: null,
  };

  it('the prompt keeps a heredoc as lines (escape sequences escaped); list cells and details are one escaped line', () => {
    expect(subjectBlock('Zuno wants to run shell', row)).toBe(
      "Zuno wants to run shell:\n  │ cat <<'EOF' > note.txt\n  │ hello \\e[2J\n  │ EOF\n  │ echo done && ls",
    );
    expect(subjectBlock('Zuno wants to run shell', { ...row, subjectText: 'echo hi > a' })).toBe(
      'Zuno wants to run shell: echo hi > a',
    );
    expect(subjectCell(row)).toBe("cat <<'EOF' > note.txt\\nhello \\e[2J\\nEOF\\necho done && ls");
    expect(partsLine(row)).toBe('parts: cat; echo done; ls');
    const table = renderApprovals([row], 5000);
    expect(table).toContain("shell  cat <<'EOF' > note.txt\\nhello \\e[2J\\nEOF\\necho done && ls  strict mode");
    expect(table).toContain('\n    ↳ parts: cat; echo done; ls\n');
    expect(table).not.toContain('\u001b');
    const line = approvalLine([
      { ...pending(), subjectText: row.subjectText, subjectParts: row.subjectParts!, revision: 1 },
    ])!;
    expect(line).toContain(
      "shell: cat &lt;&lt;'EOF' &gt; note.txt\\\\nhello \\\\e\\[2J\\\\nEOF\\\\necho done &amp;&amp; ls · parts: cat; echo done; ls",
    );
    expect(line.includes('\n') || line.includes('\u001b')).toBe(false);
  });

  it('a 100 KB command left in the projection names the tool once; long parts are cut with their length named', () => {
    const big = `echo ${'A'.repeat(100_000)}`;
    const text = standInText({
      name: 'shell',
      summary: 'shell: echo AAAA…',
      shown: { kind: 'command', digest: sha256Hex(big), chars: big.length },
    });
    expect(text).toBe(
      'echo AAAA… (a command of 100005 characters: its full text is recorded with the approval — zuno approvals list)',
    );
    const parts = [`echo ${'A'.repeat(1000)}`, 'writes out.txt'];
    const line = approvalLine([{ ...pending(), subjectText: text, subjectParts: parts, revision: 1 }])!;
    expect(line).toContain(': shell: echo AAAA… (a command of 100005 characters');
    expect(line).not.toContain('shell: shell:');
    const joined = parts.join('; ').length;
    expect(line).toContain(` · parts: echo ${'A'.repeat(395)}… (${joined} characters)`);
  });

  it('a session-wide confirmation says what the grant covers, in those words', () => {
    const simple = { ...row, subjectText: 'echo hello > note.txt', subjectParts: ['echo hello'] };
    expect(
      describeDecision(simple, 'approve_session', { tool: 'shell', pattern: 'echo hello > note.txt', scope: 'call' }),
    ).toBe(
      'approved ap_0_0_0 (shell: echo hello > note.txt); session ses_a no longer asks for this exact command: echo hello > note.txt',
    );
    expect(grantWords(simple, { tool: 'shell', pattern: 'echo hello > *.txt', scope: 'call' })).toBe(
      'shell commands matching the pattern: echo hello > *.txt',
    );
    expect(grantWords({ ...simple, subjectKind: 'paths', tool: 'write', subjectText: 'src/a.ts' })).toBe(
      'this exact write call: src/a.ts',
    );
    expect(grantWords({ ...simple, grantScope: null, grantPattern: 'echo hello' })).toBe(
      'shell calls whose parts all match: echo hello',
    );
  });
});
