/**
 * The eval's report: one line per task on stdout (pass/fail, tokens, tool
 * calls, wall time, and why a task failed), the pass rate, and the JSON
 * report file (docs/eval.md "Report").
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Driver } from './drive.js';
import type { TaskOutcome } from './run-task.js';

/** The JSON report (schema 1). */
export interface EvalReport {
  schema: 1;
  startedAt: string;
  endedAt: string;
  driver: Driver;
  zunoHome: string;
  tasks: TaskOutcome[];
  passed: number;
  total: number;
  /** passed / total, 0 when no task ran. */
  passRate: number;
  totals: { tokens: number; toolCalls: number; wallMs: number };
}

/** The report of finished tasks. */
export function makeReport(driver: Driver, zunoHome: string, startedAt: Date, tasks: TaskOutcome[]): EvalReport {
  const passed = tasks.filter((t) => t.pass).length;
  const sum = (f: (t: TaskOutcome) => number | null) => tasks.reduce((a, t) => a + (f(t) ?? 0), 0);
  return {
    schema: 1,
    startedAt: startedAt.toISOString(),
    endedAt: new Date().toISOString(),
    driver,
    zunoHome,
    tasks,
    passed,
    total: tasks.length,
    passRate: tasks.length === 0 ? 0 : passed / tasks.length,
    totals: { tokens: sum((t) => t.tokens), toolCalls: sum((t) => t.toolCalls), wallMs: sum((t) => t.wallMs) },
  };
}

/** One task's line, with its failing reasons indented below it. */
export function taskLines(t: TaskOutcome): string {
  const cost = `tokens ${t.tokens ?? '?'}  tool calls ${t.toolCalls ?? '?'}`;
  const head = `${t.pass ? 'PASS' : 'FAIL'}  ${t.id.padEnd(22)} ${t.mode.padEnd(8)} ${cost}  ${(t.wallMs / 1000).toFixed(1)}s`;
  return [head, ...t.reasons.map((r) => `      - ${r}`)].join('\n');
}

/** The closing lines: the pass rate and the totals. */
export function summaryLines(r: EvalReport): string {
  const pct = Math.round(r.passRate * 100);
  return [
    `pass rate: ${r.passed}/${r.total} (${pct}%)`,
    `totals: tokens ${r.totals.tokens}  tool calls ${r.totals.toolCalls}  wall ${(r.totals.wallMs / 1000).toFixed(1)}s`,
  ].join('\n');
}

/** Writes the report as JSON to `path` (its folder created). */
export function writeReport(path: string, r: EvalReport): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, `${JSON.stringify(r, null, 2)}\n`);
}
