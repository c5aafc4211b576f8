import { describe, expect, it } from 'vitest';
import { analyzeCommand } from '../../../activities/tools/shell/analyze.js';
import type { ShellExitPolicy } from '../../../activities/tools/shell/types.js';

async function kinds(command: string, policy: ShellExitPolicy = 'pipefail', interpreter = 'bash'): Promise<string[]> {
  const a = await analyzeCommand(command, policy, interpreter);
  expect(a.authority).toBe(a.limitations.length === 0 ? 'authoritative' : 'derived');
  return a.limitations.map((l) => l.kind);
}

describe('analyzeCommand (SH1, SH2)', () => {
  it('plain commands, pipelines and && chains are authoritative under pipefail', async () => {
    expect(await kinds('cargo test')).toEqual([]);
    expect(await kinds('cargo test 2>&1 | tail -5')).toEqual([]);
    expect(await kinds('cd pkg && npm test')).toEqual([]);
    expect(await kinds('export CI=1; npm test')).toEqual([]);
    expect(await kinds('make || exit 1')).toEqual([]);
  });

  it('|| true and || : downgrade with a note naming the construct and a remedy', async () => {
    const a = await analyzeCommand('cargo test || true');
    expect(a.authority).toBe('derived');
    expect(a.limitations).toHaveLength(1);
    expect(a.limitations[0]).toMatchObject({ kind: 'or_fallback' });
    expect(a.limitations[0]!.note).toContain('cargo test || true');
    expect(a.limitations[0]!.remedy).not.toBe('');
    expect(await kinds('make || :')).toEqual(['or_fallback']);
    expect(await kinds('npm ci || npm install')).toEqual(['or_fallback']);
  });

  it('quoted text, comments and here-document bodies downgrade nothing', async () => {
    expect(await kinds("echo 'a || true'")).toEqual([]);
    expect(await kinds('echo "set +e; bash -c x || true"')).toEqual([]);
    expect(await kinds('make test # || true')).toEqual([]);
    expect(await kinds('cat <<EOF\nfor x in a; do b || true; done\nEOF')).toEqual([]);
  });

  it('code inside $(…) is still code', async () => {
    expect(await kinds('echo "$(false || true)"')).toEqual(['or_fallback']);
  });

  it('set +e and set +o pipefail downgrade; set -e enables errexit for what follows', async () => {
    expect(await kinds('set +e; make')).toEqual(['errexit_off']);
    expect(await kinds('set -e; make; set +o errexit')).toEqual(['errexit_off']);
    expect(await kinds('set +o pipefail; a | b')).toEqual(['pipefail_off']);
    expect(await kinds('set -euo pipefail; make build; make test')).toEqual([]);
  });

  it('bash -c / sh -c (behind wrappers too) downgrade', async () => {
    expect(await kinds("bash -c 'false | true'")).toEqual(['nested_shell']);
    expect(await kinds('sh -c "make"')).toEqual(['nested_shell']);
    expect(await kinds('env -i FOO=1 /bin/bash -ec "make"')).toEqual(['nested_shell']);
    expect(await kinds('timeout 10 zsh -c "make"')).toEqual(['nested_shell']);
    expect(await kinds('bash ./run-tests.sh')).toEqual([]);
  });

  it('if/while/until conditions and loops downgrade', async () => {
    expect(await kinds('if make test; then echo ok; fi')).toEqual(['condition']);
    expect(await kinds('while make test; do sleep 1; done')).toEqual(['loop', 'condition']);
    expect(await kinds('until make test; do sleep 1; done')).toEqual(['loop', 'condition']);
    expect(await kinds('for f in a b; do make "$f"; done')).toEqual(['loop']);
    expect(await kinds('for ((i=0; i<3; i++)); do make; done')).toEqual(['loop']);
  });

  it('under all, an && chain before the last statement downgrades; the last one does not', async () => {
    expect(await kinds('a && b; c', 'all')).toEqual(['and_chain']);
    expect(await kinds('a; b && c', 'all')).toEqual([]);
    expect(await kinds('a; b; c', 'all')).toEqual([]);
  });

  it('without errexit, a statement before the last one downgrades (its status is discarded)', async () => {
    expect(await kinds('make test; echo done')).toEqual(['sequence']);
    expect(await kinds('echo start; make test')).toEqual([]);
  });

  it('background statements downgrade', async () => {
    expect(await kinds('make test &')).toEqual(['background']);
  });

  it('exitPolicy last is derived', async () => {
    expect(await kinds('false | true', 'last')).toEqual(['exit_policy_last']);
  });

  it('an interpreter outside bash/ksh/zsh only gives derived and names itself', async () => {
    const a = await analyzeCommand('make', 'pipefail', '/bin/sh');
    expect(a.authority).toBe('derived');
    expect(a.limitations[0]).toMatchObject({ kind: 'interpreter' });
    expect(a.limitations[0]!.note).toContain('sh');
    expect(await kinds('make', 'pipefail', 'dash')).toEqual(['interpreter']);
    expect(await kinds('make', 'pipefail', '/usr/bin/zsh')).toEqual([]);
  });

  it('an unparseable command is derived with "could not parse"', async () => {
    const a = await analyzeCommand('echo $(( 1 + ');
    expect(a.authority).toBe('derived');
    expect(a.limitations.map((l) => l.kind)).toEqual(['unparsed']);
    expect(a.limitations[0]!.note).toMatch(/could not parse/i);
    expect(await kinds('if true; then echo')).toEqual(['unparsed']);
  });
});
