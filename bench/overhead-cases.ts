/**
 * The tool cases of the orchestration-overhead benchmark: which tool, how many
 * sessions and calls, and the arguments of each call. `read` is Safe and
 * Shareable (a step's calls run in parallel); `shell` and `apply_patch` are
 * SideEffecting and Exclusive (a step's calls run one after another).
 */
import { toolImplementations } from '../activities/tools/index.js';
import type { Script } from '../local-provider/script.js';

export interface BenchCase {
  tool: string;
  /** Scripted sessions per phase (sequential, then concurrent). */
  sessions: number;
  /** Tool calls per session. */
  calls: number;
  /** Tool calls per model step (also the session's toolConcurrency). */
  perStep: number;
  /** Sessions in flight in the concurrent phase. */
  concurrency: number;
  /** Direct in-process calls measured, after `warmup` unmeasured ones. */
  direct: number;
  warmup: number;
  /** The tool's TD5 concurrency is Exclusive: a step's calls serialize. */
  exclusive: boolean;
  prompt: string;
  /** Arguments of call `i`; `tag` is unique per script / direct run, so writes never collide. */
  args(i: number, tag: string): Record<string, unknown>;
}

export interface CaseCounts {
  sessions: number;
  calls: number;
  perStep: number;
  direct: number;
  /** Concurrent-phase cap (capped by `sessions`); undefined → all sessions at once. */
  concurrency: number | undefined;
}

/** Files `read` cycles over (created by the bench under `src/`). */
export const readFileCount = (perStep: number) => Math.min(perStep, 20);

/** A one-file Add patch: no read credential needed, a real write each call. */
function addFilePatch(path: string, i: number): string {
  return ['*** Begin Patch', `*** Add File: ${path}`, `+bench file ${i}`, '+second line', '*** End Patch'].join('\n');
}

interface CaseSpec {
  prompt: string;
  /** Unmeasured direct calls before the measured ones. */
  warmup: (direct: number) => number;
  args: (n: CaseCounts) => BenchCase['args'];
}

const specs = {
  read: {
    prompt: 'read the files',
    warmup: (m) => Math.min(200, m),
    args: (n) => (i) => ({ path: `src/f${i % readFileCount(n.perStep)}.ts` }),
  },
  shell: {
    prompt: 'run the command',
    warmup: (m) => Math.min(3, m),
    args: () => () => ({ command: 'echo x' }),
  },
  apply_patch: {
    prompt: 'add the files',
    warmup: (m) => Math.min(50, m),
    args: () => (i, tag) => ({ patch: addFilePatch(`gen/${tag}/f${i}.txt`, i) }),
  },
} satisfies Record<string, CaseSpec>;

export type BenchTool = keyof typeof specs;

export function benchCase(tool: BenchTool, n: CaseCounts): BenchCase {
  const spec: CaseSpec = specs[tool];
  return {
    tool,
    sessions: n.sessions,
    calls: n.calls,
    perStep: n.perStep,
    concurrency: Math.min(n.concurrency ?? n.sessions, n.sessions),
    direct: n.direct,
    warmup: spec.warmup(n.direct),
    exclusive: toolImplementations[tool]!.declaration.concurrency === 'Exclusive',
    prompt: spec.prompt,
    args: spec.args(n),
  };
}

let scripts = 0;

/** `calls` tool calls, `perStep` per model step, then a final text reply. */
export function script(c: BenchCase): Script {
  const tag = `s${scripts++}`;
  const replies: Script['replies'] = [];
  for (let i = 0; i < c.calls; i += c.perStep) {
    const n = Math.min(c.perStep, c.calls - i);
    replies.push({
      toolCalls: Array.from({ length: n }, (_, j) => ({ name: c.tool, arguments: c.args(i + j, tag) })),
    });
  }
  replies.push({ text: 'done' });
  return { replies };
}
