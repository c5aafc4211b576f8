import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, describe, expect, inject, it } from 'vitest';
import { parseSeatReport } from '../../core/council/report.js';
import { loadScript } from '../../local-provider/script.js';
import { ROOT } from '../helpers/dev-server.js';
import { expectTypedFailure, makeHome, runZuno, tempDir, writeJson } from '../cli/helpers.js';

/**
 * `zuno council run / show` as a person runs them: bad input refused with a
 * typed one-line error before anything is written or started, and the demo
 * (demo/council-review/) run for real through the CLI on the dev server.
 */
const DEMO = join(ROOT, 'demo', 'council-review');
const OFFLINE = { TEMPORAL_ADDRESS: '127.0.0.1:1' };
const repos: string[] = [];
afterAll(() => {
  for (const r of repos) rmSync(r, { recursive: true, force: true });
});

function prepare(): string {
  const repo = execFileSync(process.execPath, [join(DEMO, 'prepare.mjs')], { encoding: 'utf8' }).trim();
  repos.push(repo);
  return repo;
}

/** Council rows in the home's SQLite projection (0 when there is none). */
function councilRows(home: string): number {
  const file = join(home, 'zuno.db');
  if (!existsSync(file)) return 0;
  const db = new Database(file, { readonly: true, fileMustExist: true });
  try {
    return (db.prepare('SELECT COUNT(*) AS n FROM "councils"').get() as { n: number }).n;
  } finally {
    db.close();
  }
}

describe('zuno council run refuses bad input before anything starts', () => {
  const script = writeJson(tempDir('zuno-council-bad-'), 'answers.json', { replies: [{ text: 'ok' }] });
  const repo = prepare();
  it.each<[string, string, string[], string]>([
    ['an empty question', 'input_invalid', ['  '], 'the question is empty'],
    ['an unknown preset', 'preset_unknown', ['Review it', '--preset', 'fast'], 'unknown preset "fast"'],
    [
      'a budget flag',
      'preset_frozen',
      ['Review it', '--deadline-ms', '1000'],
      '--deadline-ms: the balanced-review preset is frozen',
    ],
    ['two budget flags', 'preset_frozen', ['Review it', '--quorum', '1', '--seats', '5'], '--seats, --quorum'],
    ['shell syntax as a range', 'input_invalid', ['Review it', '--diff', 'HEAD;rm -rf /'], 'is not a git range'],
    ['an option as a range', 'input_invalid', ['Review it', '--diff=--output=x'], 'is not a git range'],
    ['a range git does not know', 'diff_invalid', ['Review it', '--diff', 'HEAD~9..HEAD'], 'HEAD~9'],
    ['dots as a range', 'input_invalid', ['Review it', '--diff', '..'], 'is not a git range'],
    ['a range without changes', 'diff_empty', ['Review it', '--diff', 'HEAD..HEAD'], 'has no changes'],
    [
      'a --dir outside a git repository',
      'diff_invalid',
      ['Review it', '--diff', 'HEAD~1..HEAD', '--dir', tempDir('zuno-council-nogit-')],
      'is not inside a git repository',
    ],
    [
      'both --model and --script',
      'options_conflict',
      ['Review it', '--model', 'openai/gpt-4.1'],
      '--model and --script both choose the model',
    ],
  ])('%s → %s', async (_what, code, args, message) => {
    const { home } = makeHome();
    const dir = args.includes('--dir') ? [] : ['--dir', repo];
    const r = await runZuno(['council', 'run', ...args, ...dir, '--script', script], { home, env: OFFLINE });
    expect(expectTypedFailure(r, code)).toContain(message);
    expect(existsSync(join(home, 'zuno.db'))).toBe(false); // nothing opened, nothing started
  });

  it('show: a malformed id is a usage error, an unknown one council_not_found', async () => {
    const { home } = makeHome();
    expectTypedFailure(await runZuno(['council', 'show', 'nope'], { home, env: OFFLINE }), 'usage_error');
    expectTypedFailure(await runZuno(['council', 'show', 'cr_abcdef12'], { home, env: OFFLINE }), 'council_not_found');
  });

  it('--help names the frozen preset and its numbers, and hides the budget flags it refuses', async () => {
    const { home } = makeHome();
    const r = await runZuno(['council', '--help'], { home, env: OFFLINE });
    expect(r.stdout).toContain('600000 ms in all');
    expect(r.stdout).toContain('540000 ms deadline');
    const run = await runZuno(['council', 'run', '--help'], { home, env: OFFLINE });
    expect(run.stdout).toContain('--diff <git range>');
    expect(run.stdout).not.toContain('--deadline-ms');
  });
});

describe('the council demo', () => {
  it('its seats cite real lines of the prepared commit; the invalid first report is invalid by the rule', async () => {
    const repo = prepare();
    const script = await loadScript(join(DEMO, 'script.json'));
    const texts = (script.threads ?? []).flatMap((t) => t.replies.map((r) => ({ match: t.match, text: r.text ?? '' })));
    const reports = texts
      .filter((t) => t.text.includes('```json'))
      .map((t) => ({ ...t, parsed: parseSeatReport(t.text) }));
    expect(reports.map((r) => [r.match, r.parsed.validity])).toEqual([
      ['correctness-review · attempt 1/', 'valid'],
      ['security-review · attempt 1/', 'valid'],
      ['tests-review · attempt 1/', 'invalid'],
      ['tests-review · attempt 2/', 'valid'],
    ]);
    const line = (file: string, n: number) => readFileSync(join(repo, file), 'utf8').split('\n')[n - 1]!;
    expect(line('src/paginate.js', 5)).toBe('  const end = start + size + 1;');
    expect(line('src/archive.js', 5)).toContain('execSync(`tar czf exports/${name}.tgz ${dir}`)');
    const diff = execFileSync('git', ['diff', '--name-only', 'HEAD~1..HEAD'], { cwd: repo, encoding: 'utf8' });
    expect(diff.trim().split('\n').sort()).toEqual(['src/archive.js', 'src/paginate.js']);
  });

  it('runs through `zuno council run` on the dev server: seat settlements as they happen, the retry, the table and the synthesis; `council show` reads it back', async () => {
    const repo = prepare();
    const { home } = makeHome({ address: inject('temporalAddress') });
    const r = await runZuno(
      [
        'council',
        'run',
        'Review the last commit',
        '--diff',
        'HEAD~1..HEAD',
        '--dir',
        repo,
        '--script',
        join(DEMO, 'script.json'),
      ],
      { home, timeoutMs: 120_000 },
    );
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toMatch(/council cr_[a-z0-9]+ started/);
    expect(r.stderr).toContain(
      '↻ seat 3/3 tests-review: attempt 1 completed, report invalid — the report does not match the schema: findings.0.evidence',
    );
    for (const s of ['1/3 correctness-review', '2/3 security-review'])
      expect(r.stderr).toContain(`✓ seat ${s}: completed, report valid`);
    expect(r.stderr).toContain('✓ seat 3/3 tests-review: completed, report valid (2 attempts)');
    expect(r.stdout).toContain('succeeded · 3/3 valid reports (quorum 2)');
    // One row per attempt: the retried seat's invalid first report and its valid second.
    expect(r.stdout).toMatch(/3\/3\s+tests-review\s+1\s+completed\s+invalid\s+-\s+\d+\s+\d+\/\d+\s+ses_/);
    expect(r.stdout).toMatch(/3\/3\s+tests-review\s+2\s+completed\s+valid\s+-\s+\d+\s+\d+\/\d+\s+ses_/);
    expect(r.stdout).toContain('shell injection in `archiveExport()`');
    const runId = /council (cr_[a-z0-9]+) started/.exec(r.stderr)![1]!;
    expect(councilRows(home)).toBe(1);
    const show = await runZuno(['council', 'show', runId, '--json'], { home });
    expect(show.code, show.stderr).toBe(0);
    const row = JSON.parse(show.stdout);
    expect(row).toMatchObject({ id: runId, status: 'succeeded', preset: 'balanced-review', diffRange: 'HEAD~1..HEAD' });
    expect(row.synthesis).toContain('off-by-one in `page()`');
    // The diff the read-only seats were pointed at, written under .zuno/council/<runId>/.
    expect(readFileSync(join(repo, '.zuno', 'council', runId, 'diff.patch'), 'utf8')).toContain(
      '+  const end = start + size + 1;',
    );
  }, 150_000);
});
