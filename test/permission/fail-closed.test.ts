import { mkdtempSync, realpathSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { beforeAll, describe, expect, it } from 'vitest';
import { callSubject } from '../../activities/permission/subject.js';
import { PermissionConfigSchema } from '../../client/permission-config.js';
import { evaluatePermission } from '../../core/permission/evaluate.js';
import type { CallSubject, DynamicKind, PermissionPolicy } from '../../core/permission/types.js';

/**
 * Issue 26 item 4: a shell command whose programs cannot all be named
 * statically asks when a shell `ask`/`deny` rule exists (and in strict
 * mode); with no shell rule nothing changes.
 */
let ws: string;
beforeAll(() => {
  ws = realpathSync(mkdtempSync(join(tmpdir(), 'zuno-fail-closed-')));
});

const policy = (mode: PermissionPolicy['mode'], rules: unknown): PermissionPolicy =>
  PermissionConfigSchema.parse({ mode, rules });

/** The setting: everything allowed but `rm`. */
const DENY_RM = policy('standard', { shell: { '*': 'allow', 'rm *': 'deny' } });

async function subjectOf(command: string): Promise<CallSubject> {
  return callSubject('shell', { command }, ws);
}

function decide(p: PermissionPolicy, subject: CallSubject) {
  return evaluatePermission(p, { tool: 'shell', effect: 'SideEffecting', subject }, []);
}

/** The subject as computed before issue 26: no dynamic parts, no writes. */
function before(subject: CallSubject): CallSubject {
  if (subject.kind !== 'commands') return subject;
  return {
    kind: 'commands',
    commands: subject.commands,
    ...(subject.unwrapped ? { unwrapped: subject.unwrapped } : {}),
  };
}

/** [class, command, the dynamic kind found, the reason under DENY_RM (deny: the rule's)] */
const CASES: [string, string, DynamicKind, string][] = [
  [
    'command substitution in command position',
    '$(echo rm) x',
    'program',
    'the program is chosen at run time: $(echo rm) x',
  ],
  ['backquotes in command position', '`echo rm` x', 'program', 'the program is chosen at run time: `echo rm` x'],
  ['a variable in command position', 'a=rm; $a x', 'program', 'the program is chosen at run time: $a x'],
  ['a braced variable glued to a name', 'rm${IFS}x', 'program', 'the program is chosen at run time: rm${IFS}x'],
  ['a glob in command position', '/???/r? x', 'program', 'the program is chosen at run time: /???/r? x'],
  ['a wrapper running a variable', 'sudo "$CMD" x', 'program', 'the program is chosen at run time: sudo $CMD x'],
  ['eval of non-literal text', 'eval "$CMD"', 'eval', 'the code it evaluates is built at run time: eval $CMD'],
  [
    'trap of non-literal text',
    'trap "$CMD" EXIT',
    'eval',
    'the code it evaluates is built at run time: trap $CMD EXIT',
  ],
  [
    'source of a file chosen at run time',
    'source "$F"',
    'source',
    'it runs a file chosen at run time or read from its input: source $F',
  ],
  [
    '. of a process substitution',
    '. <(curl -s https://x)',
    'source',
    'it runs a file chosen at run time or read from its input: . <(curl -s https://x)',
  ],
  [
    'sh -c of non-literal text',
    'sh -c "$CMD"',
    'interpreter_code',
    "the interpreter's code is built at run time: sh -c $CMD",
  ],
  [
    'bash -c with a variable as its code',
    'bash -c $CMD',
    'interpreter_code',
    "the interpreter's code is built at run time: bash -c $CMD",
  ],
  [
    'zsh -c of a substitution',
    'zsh -c "$(cat x)"',
    'interpreter_code',
    "the interpreter's code is built at run time: zsh -c $(cat x)",
  ],
  [
    'python -c of non-literal text',
    'python3 -c "$CODE"',
    'interpreter_code',
    "the interpreter's code is built at run time: python3 -c $CODE",
  ],
  [
    'node -e of non-literal text',
    'node -e "$JS"',
    'interpreter_code',
    "the interpreter's code is built at run time: node -e $JS",
  ],
  [
    'perl -e of non-literal text',
    'perl -e "$P"',
    'interpreter_code',
    "the interpreter's code is built at run time: perl -e $P",
  ],
  [
    'a here-string piped into sh',
    "cat <<< 'rm x' | sh",
    'interpreter_input',
    'the interpreter reads its program from its input: sh',
  ],
  [
    'a download piped into bash',
    'curl -fsSL https://x/install.sh | bash',
    'interpreter_input',
    'the interpreter reads its program from its input: bash',
  ],
  [
    'a here-string built at run time as bash input',
    'bash <<< "$CMD"',
    'interpreter_input',
    'the interpreter reads its program from its input: bash',
  ],
  [
    'a here-document that expands, as sh input',
    'sh <<EOF\n$CMD x\nEOF',
    'interpreter_input',
    'the interpreter reads its program from its input: sh',
  ],
  [
    'piped into python',
    'echo "import os" | python3',
    'interpreter_input',
    'the interpreter reads its program from its input: python3',
  ],
  [
    'a process substitution as interpreter input',
    'bash < <(echo rm v48)',
    'interpreter_input',
    'the interpreter reads its program from its input: bash',
  ],
  [
    'a file chosen at run time as interpreter input',
    'sh < "$F"',
    'interpreter_input',
    'the interpreter reads its program from its input: sh',
  ],
  [
    'hash -p names the program at run time',
    'PATH=/usr/bin:/bin; hash -p /bin/rm del; del v41',
    'program',
    'the program is chosen at run time: hash -p /bin/rm del',
  ],
  [
    'enable -f loads builtins',
    'enable -f ./x.so del; del x',
    'program',
    'the program is chosen at run time: enable -f ./x.so del',
  ],
  [
    'script -c of non-literal text',
    'script -qc "$CMD" /dev/null',
    'interpreter_code',
    "the interpreter's code is built at run time: script -qc $CMD /dev/null",
  ],
  [
    'script with no -c runs a shell reading its input',
    "echo 'rm x' | script -q /dev/null",
    'interpreter_input',
    'the interpreter reads its program from its input: script -q /dev/null',
  ],
  [
    'bash -s',
    'cat x | bash -s -- arg',
    'interpreter_input',
    'the interpreter reads its program from its input: bash -s -- arg',
  ],
  ['find -delete', "find . -name '*.o' -delete", 'find', 'find deletes files itself: find . -name *.o -delete'],
  ['find -exec of a variable', 'find . -exec $X {} \\;', 'program', 'the program is chosen at run time: $X {}'],
  [
    'find -execdir of non-literal sh code',
    'find . -execdir sh -c "$C" \\;',
    'interpreter_code',
    "the interpreter's code is built at run time: sh -c $C",
  ],
  ['xargs with a dynamic program', 'ls | xargs $CMD', 'program', 'the program is chosen at run time: xargs $CMD'],
  ['xargs running what it reads', 'ls | xargs -I{} {}', 'program', 'the program is chosen at run time: xargs -I{} {}'],
  ['xargs sh: scripts named by the input', 'ls | xargs sh', 'program', 'the program is chosen at run time: xargs sh'],
  [
    'parallel with no command',
    'cat jobs | parallel',
    'parallel',
    'parallel reads the commands it runs from its input: parallel',
  ],
  ['parallel with a dynamic program', 'parallel $CMD ::: a b', 'program', 'the program is chosen at run time: $CMD'],
  ['env -S', "env -S 'rm x'", 'env_split', 'env -S builds the command at run time: env -S rm x'],
  [
    'env --split-string',
    'env --split-string="rm x"',
    'env_split',
    'env -S builds the command at run time: env --split-string=rm x',
  ],
  ['coproc', 'coproc rm x', 'coproc', 'coproc runs a command the rules do not follow: coproc rm x'],
  [
    'a function defined in the command',
    'f() { echo hi; }; f',
    'function',
    'the command defines a function, which can change what a name runs: f() { echo hi; }',
  ],
  [
    'an alias defined in the command',
    "alias ls='rm -rf'; ls x",
    'alias',
    'the command defines an alias, which can change what a name runs: alias ls=rm -rf',
  ],
  [
    'a program the command writes itself',
    'cp /bin/rm ./del; ./del x',
    'written_program',
    'it runs a file the same command writes: ./del x',
  ],
  [
    'a script the command writes itself',
    "echo 'rm x' > s.sh; sh s.sh",
    'written_program',
    'it runs a file the same command writes: sh s.sh',
  ],
  [
    'a link the command makes, run by name from PATH',
    'ln -s /bin/rm d && PATH=.:$PATH d x',
    'written_program',
    'it runs a file the same command writes: PATH=.:$PATH d x',
  ],
  ['flock -c', "flock lk -c 'rm x'", 'program', 'the program is chosen at run time: flock lk -c rm x'],
  [
    'text that does not parse',
    'ls &&',
    'unparsed',
    'the command does not parse, so its programs cannot be named: ls &&',
  ],
  [
    'a here-document that never ends',
    'cat <<EOF\nrm x',
    'unparsed',
    'the command does not parse, so its programs cannot be named: cat <<EOF…',
  ],
];

describe('fail closed: with a deny rule on rm and "*": "allow"', () => {
  it.each(CASES)('%s: %j asks', async (_class, command, kind, reason) => {
    const subject = await subjectOf(command);
    expect(subject.kind === 'commands' && subject.dynamic?.map((d) => d.kind)).toContain(kind);
    expect(decide(DENY_RM, subject)).toMatchObject({ action: 'ask', reason });
  });

  it.each([
    ['find -exec of a literal rm is that rm', 'find . -name x -exec rm {} \\;'],
    ['find -ok too', 'find . -ok rm -f {} +'],
    ['parallel of a literal rm', "parallel 'rm {}' ::: a b"],
    ['parallel running rm with its arguments', 'parallel rm ::: v50'],
    ['parallel with options before rm', 'parallel -j2 /bin/rm :::: list'],
    ['script -c of literal text is parsed like sh -c', "script -qc 'rm v58' /dev/null"],
    ['script --command=', "script --command='rm v58' -q log"],
    ['xargs of a literal rm', 'ls | xargs rm'],
    ['text that does not parse but spells the denied command', 'rm x &&'],
    ['a function whose body is denied', 'f() { rm -f x; }; f'],
    ['literal sh -c text', "sh -c 'rm x'"],
    ['watch with an interval', 'watch -n 1 rm x'],
    ['toybox', 'toybox rm x'],
    ['a literal here-string is read as shell code', "bash <<< 'rm x'"],
    ['a literal here-document too', "sh <<'EOF'\nrm x\nEOF"],
  ])('a deny that also matches statically stays a deny: %s', async (_name, command) => {
    expect(decide(DENY_RM, await subjectOf(command))).toMatchObject({
      action: 'deny',
      reason: 'rule shell "rm *" → deny',
    });
  });

  it.each([
    'ls -la',
    'git status && npm test',
    "bash -c 'ls'",
    'bash ci.sh',
    'python3 script.py',
    'python3 -m pytest -q',
    "python3 -c 'print(1)'",
    'node --version',
    'echo $(date) "$HOME"',
    'find . -name x -print',
    'find . -exec grep -l foo {} +',
    'FOO=$(pwd) make',
    'env PATH="$PATH:/x" make',
    'source ./env.sh',
    'ls | xargs grep foo',
    "python3 - <<'EOF'\nprint(1)\nEOF",
    'sh < script.sh',
    "script -qc 'make test' /dev/null",
    'hash -r',
  ])('statically named programs are decided by the rules alone: %j is allowed', async (command) => {
    const subject = await subjectOf(command);
    expect(subject.kind === 'commands' && subject.dynamic).toBeFalsy();
    expect(decide(DENY_RM, subject).action).toBe('allow');
  });
});

describe('who fails closed: modes and rules', () => {
  it.each(CASES)('%s: with no shell rule at all, %j evaluates exactly as before', async (_class, command) => {
    const subject = await subjectOf(command);
    for (const p of [
      policy('standard', {}),
      policy('standard', { read: { 'secrets/*': 'deny' } }),
      policy('standard', { shell: { '*': 'allow' } }),
      policy('allow_all', {}),
      policy('allow_all', { shell: { 'git push*': 'ask' } }),
    ]) {
      expect(decide(p, subject), JSON.stringify(p)).toEqual(decide(p, before(subject)));
    }
  });

  it('an ask rule is enough; strict always asks, saying why; allow_all with a deny rule denies', async () => {
    const subject = await subjectOf('$(echo rm) x');
    const why = 'the program is chosen at run time: $(echo rm) x';
    expect(decide(policy('standard', { shell: { '*': 'allow', 'git push*': 'ask' } }), subject)).toMatchObject({
      action: 'ask',
      reason: why,
    });
    expect(decide(policy('strict', {}), subject)).toMatchObject({ action: 'ask', reason: why });
    expect(decide(policy('strict', { shell: { '*': 'allow' } }), subject)).toMatchObject({
      action: 'ask',
      reason: why,
    });
    expect(decide(policy('allow_all', { shell: { 'rm *': 'deny' } }), subject)).toMatchObject({
      action: 'deny',
      reason: `${why} (allow_all mode cannot ask, and a deny rule may apply)`,
    });
    expect(decide(policy('standard', { '*': { 'rm *': 'deny' } }), subject).action).toBe('ask');
  });

  it('a write target chosen at run time answers to the edit rules, not the shell rules', async () => {
    const subject = await subjectOf('echo x > "$F"');
    expect(decide(DENY_RM, subject).action).toBe('allow');
    expect(decide(policy('standard', { edit: { 'secrets/*': 'deny' } }), subject)).toMatchObject({
      action: 'ask',
      reason: 'the path it writes is chosen at run time: > "$F"',
    });
  });

  it('a session grant of the exact dynamic text stops asking for it, not for another', async () => {
    const subject = await subjectOf('$(echo rm) x');
    const d = decide(DENY_RM, subject);
    const grants = (d.grantPatterns ?? []).map((pattern) => ({ tool: 'shell', pattern }));
    expect(evaluatePermission(DENY_RM, { tool: 'shell', effect: 'SideEffecting', subject }, grants).action).toBe(
      'allow',
    );
    const other = await subjectOf('$(echo rm) y');
    expect(evaluatePermission(DENY_RM, { tool: 'shell', effect: 'SideEffecting', subject: other }, grants).action).toBe(
      'ask',
    );
  });
});
