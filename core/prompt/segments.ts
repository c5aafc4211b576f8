/**
 * The system segments of a model request (SE9, SE28; issue 32, decided in
 * docs/prompts.md): stable ids, their order, and the receipt recorded before
 * a request is sent. Pure data and helpers; the texts live in `prompts/`.
 */

/** A system segment as assembled: its stable id, where its text came from, the text. */
export interface PromptSegment {
  /** Stable segment id (SE28), e.g. `system.base`, `runtime.execution`. */
  segment: string;
  /** Exact provenance: a `prompts/…` file, the rule files' paths, or what a generated segment was made from. */
  source: string;
  text: string;
}

/** Segment ids in the order a request carries them (SE28 SEED-GAP "the full segment catalogue"). */
export const SEGMENT_IDS = {
  base: 'system.base',
  family: 'system.family',
  agent: 'system.agent',
  readOnly: 'runtime.read_only',
  execution: 'runtime.execution',
  reports: 'runtime.reports',
  environment: 'runtime.environment',
  taskContext: 'runtime.task_context',
  rules: 'instructions.rules',
  goalMode: 'system.goal',
  goal: 'runtime.goal',
  workState: 'runtime.work_state',
  mcp: 'runtime.mcp',
} as const;

/** One segment in a prompt receipt: id, provenance, size in UTF-16 code units and SHA-256 of its text (hex). */
export interface SegmentReceipt {
  id: string;
  source: string;
  chars: number;
  sha256: string;
}
