/** `zuno --help`, `zuno run --help`, unknown commands, and `zuno dev status` on a fresh home. */
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { buildProgram } from '../../client/cli.js';
import { ROOT } from '../helpers/dev-server.js';
import { makeHome, projectionCounts, runZuno } from './helpers.js';

describe('help', () => {
  it('zuno --help lists the commands and the environment', async () => {
    const { home } = makeHome();
    const r = await runZuno(['--help'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: zuno \[options\] \[command\]\n/);
    for (const cmd of ['run [options] <prompt>', 'worker', 'session', 'dev']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${cmd.replace(/[[\]]/g, '\\$&')}\\s`, 'm'));
    }
    for (const v of ['TEMPORAL_ADDRESS', 'TEMPORAL_NAMESPACE', 'DATABASE_URL', 'ZUNO_HOME', 'ZUNO_TEMPORAL_CONFIG']) {
      expect(r.stdout).toMatch(new RegExp(`^  ${v}\\s`, 'm'));
    }
    expect(projectionCounts(home)).toBeNull();
  });

  it('zuno run --help lists every option of run', async () => {
    const { home } = makeHome();
    const r = await runZuno(['run', '--help'], { home });
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe('');
    expect(r.stdout).toMatch(/^Usage: zuno run \[options\] <prompt>\n/);
    for (const opt of [
      '--dir <dir>',
      '--model <provider/model>',
      '--script <file>',
      '--json',
      '--config <file>',
      '--no-worker',
      '-h, --help',
    ]) {
      expect(r.stdout).toMatch(new RegExp(`^  ${opt.replace(/[/]/g, '\\/')}\\s`, 'm'));
    }
  });

  it('zuno dev --help and zuno session --help list their subcommands', async () => {
    const { home } = makeHome();
    const dev = await runZuno(['dev', '--help'], { home });
    expect(dev.code, dev.stderr).toBe(0);
    for (const sub of ['up', 'down', 'status', 'provider']) expect(dev.stdout).toMatch(new RegExp(`^  ${sub}\\s`, 'm'));
    const session = await runZuno(['session', '--help'], { home });
    expect(session.code, session.stderr).toBe(0);
    expect(session.stdout).toMatch(/^ {2}show \[options\] <id>\s/m);
  });

  it('no --help text names a SPEC id or an internal id', () => {
    const texts: string[] = [];
    const visit = (cmd: Command) => {
      let text = '';
      cmd.configureOutput({ writeOut: (t) => void (text += t), writeErr: (t) => void (text += t) });
      cmd.outputHelp();
      texts.push(text);
      cmd.commands.forEach(visit);
    };
    visit(buildProgram(() => undefined));
    expect(texts.length).toBeGreaterThanOrEqual(10);
    const all = texts.join('\n');
    expect(all).toContain('ZUNO_PROGRESS_FIRST_MS');
    expect(all).toContain('hard-interrupt the running turn');
    // SPEC ids (TD10, PR4, SE2, …) and row/step/input ids mean nothing to someone reading --help.
    for (const text of texts)
      expect(text).not.toMatch(/\b(?:TD|PR|SE|SF|SH|BG|GP|GL|FT|SR)\d+\b|\b(?:tc|prt|msg|in)_\d/);
  });

  it('an unknown command exits non-zero and says so on stderr', async () => {
    const { home } = makeHome();
    const r = await runZuno(['frobnicate'], { home });
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stdout).toBe('');
    expect(r.stderr).toContain("zuno: usage_error: unknown command 'frobnicate'");
    expect(projectionCounts(home)).toBeNull();
  });

  it('zuno run without a prompt exits non-zero naming the missing argument', async () => {
    const { home } = makeHome();
    const r = await runZuno(['run'], { home });
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toContain("zuno: usage_error: missing required argument 'prompt'");
  });

  it('an unknown option of run exits non-zero', async () => {
    const { home } = makeHome();
    const r = await runZuno(['run', 'hi', '--frob'], { home });
    expect(r.code).not.toBe(0);
    expect(r.code).not.toBeNull();
    expect(r.stderr).toContain("zuno: usage_error: unknown option '--frob'");
    expect(projectionCounts(home)).toBeNull();
  });
});

describe('zuno dev status', () => {
  it('with a fresh ZUNO_HOME reports not running (exit 1)', async () => {
    const { home } = makeHome();
    const r = await runZuno(['dev', 'status'], { home });
    expect(r.code, r.stderr).toBe(1);
    expect(r.stderr).toBe('');
    expect(r.stdout).toBe(`not running (state dir ${home}; installation ${ROOT})\n`);
  });
});
