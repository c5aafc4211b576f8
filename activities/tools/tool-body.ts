/**
 * What a tool file provides besides its declaration (core/tools/<name>.ts):
 * the execute function and every special behaviour generic code must know,
 * declared here instead of being keyed on the tool's name elsewhere.
 */
import type { z } from 'zod';
import type { BackgroundFacts, ToolActivityFacts, ToolResult } from '../../core/tools/types.js';
import type { SessionMeta } from '../../core/session/meta.js';

export type { BackgroundFacts, ToolActivityFacts } from '../../core/tools/types.js';
import type { ToolContext } from './context.js';

/**
 * Who applies the TD9 output caps: `capped` (default) — the shared wrapper
 * withholds over-cap output to an artifact; `own` — the tool withholds its
 * own output (shell keeps raw bytes, never a decoded copy); `read_back` —
 * the output is a read-back window that is never re-capped (BG4).
 */
export type ToolOutputCap = 'capped' | 'own' | 'read_back';

/** A tool's body: execute plus declared behaviour. `run` receives arguments already validated by the wrapper. */
export interface ToolBody<Args> {
  run(args: Args, ctx: ToolContext): Promise<ToolResult>;
  /** Provider-facing schema when the validating one is not a plain object (e.g. `bg`'s union). */
  wire?: z.ZodType;
  /** The call needs the session's read credentials in `ctx.credentials` (FT2, FT3). */
  needsReadCredentials?: boolean;
  /** The call reaches the session's Goal through `ctx.goal` (GL38–GL40). */
  needsGoal?: boolean;
  /** The call publishes questions to the session workflow through `ctx.questions` (issue 11 item 5). */
  needsQuestions?: boolean;
  /** The call reads or updates the session's stored work state through `ctx.workState` (Plan, Todo). */
  needsWorkState?: boolean;
  /** The call reads the session's background delegations through `ctx.jobs` (DC15). */
  needsJobs?: boolean;
  /** The call reaches the session's MCP servers through `ctx.mcp` (issue 30). */
  needsMcp?: boolean;
  /**
   * Why a session is not offered the tool, or undefined when it is (e.g.
   * `web_search` without `network.search`): modelStep leaves it out of the
   * request, and a call that arrives anyway is blocked `unavailable` with
   * this reason.
   */
  unavailableIn?(meta: SessionMeta): string | undefined;
  /** Who applies the TD9 caps (default `capped`). */
  output?: ToolOutputCap;
  /** BG6 facts read from a successful result's data. */
  backgroundFacts?(result: ToolResult): BackgroundFacts | undefined;
  /** Outcome-deciding facts for the activity result (see {@link ToolActivityFacts}). */
  activityFacts?(result: ToolResult): ToolActivityFacts;
}
