/**
 * The `web_search` result (NW2, NW4; docs/web.md): a headline, then per
 * query in the order given its numbered results (title, URL, snippet) or
 * the line of its failure — provider, scheme, host, path, status and
 * category only. `data` carries counts and the failures' diagnostics, never
 * a query, a key or a wire URL. Every query failed: an error result with
 * the first failure's category.
 */
import type { ToolResult } from '../../../core/tools/types.js';
import { describeFailure } from '../../network/search/index.js';
import type { QueryOutcome } from './batch.js';

/** The tool result of a settled batch (see module doc). */
export function renderBatch(outcomes: readonly QueryOutcome[]): ToolResult {
  const failed = outcomes.flatMap((o) => ('failure' in o ? [o.failure] : []));
  const listed = outcomes.reduce((n, o) => n + ('results' in o ? o.results.length : 0), 0);
  const duplicates = outcomes.reduce((n, o) => n + ('results' in o ? o.duplicates : 0), 0);
  const head = [
    `${outcomes.length} ${outcomes.length === 1 ? 'query' : 'queries'}, ${listed} result(s)`,
    ...(duplicates > 0 ? [`${duplicates} repeated URL(s) omitted`] : []),
    ...(failed.length > 0 ? [`${failed.length} failed`] : []),
  ].join(', ');
  const sections = outcomes.map((o, i) => [`## ${i + 1}. ${o.query}`, ...section(o)].join('\n'));
  const data = {
    queries: outcomes.length,
    results: listed,
    duplicates,
    failed: failed.length,
    perQuery: outcomes.map((o) =>
      'failure' in o ? { failure: o.failure } : { results: o.results.length, duplicates: o.duplicates },
    ),
  };
  const output = [`web_search: ${head}.`, ...sections].join('\n\n');
  if (failed.length === outcomes.length && failed[0])
    return { output, isError: true, errorCode: failed[0].category, data };
  return { output, isError: false, data };
}

/** One query's lines under its heading. */
function section(o: QueryOutcome): string[] {
  if ('failure' in o) return [`failed: ${describeFailure(o.failure)}`];
  const lines = o.results.flatMap((r, i) => [
    `${i + 1}. ${r.title || '(untitled)'}`,
    `   ${r.url}`,
    ...(r.snippet ? [`   ${r.snippet}`] : []),
  ]);
  if (o.duplicates > 0) lines.push(`(${o.duplicates} result(s) already listed above omitted)`);
  return lines.length > 0 ? lines : ['(no results)'];
}
