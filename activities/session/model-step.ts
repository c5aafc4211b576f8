import { ApplicationFailure, Context } from '@temporalio/activity';
import { EV } from '../../core/events.js';
import { assistantMessageId } from '../../core/ids.js';
import type { ModelMessage, ToolSpec, WireSurface } from '../../core/messages.js';
import type { ModelStepInput, ModelStepResult } from '../../core/session/activities.js';
import type { ProjectionStore, ProjectionWrite, StepDeletion } from '../projection/types.js';
import type { ModelResponse } from '../providers/types.js';
import { DeltaBuffer } from './delta-buffer.js';
import { carriedInputs } from './persist.js';
import { recordSettled } from './tool-records.js';
import { stepLedger } from './step-ledger.js';
import { usageEvent } from './usage-record.js';
import { estimateRequestTokens, estimatorFor, requestEstimate } from './context/estimator.js';
import { thresholdCrossing } from './compaction/threshold.js';
import type { CompactionRequired } from '../../core/compaction/contract.js';
import { providerFailure } from './retry-window.js';
import { stepsToMessages } from './prompt.js';
import { RequestAssembler, type AssembledRequest } from './request-assembly.js';
import { rollbackEvent, sessionTurnWrite, turnStartedEvent } from './step-events.js';
import { TranscriptCache } from './transcript-cache.js';
import { offeredBuiltIns, type ToolOfferSets } from './tool-offer.js';
import { PromptReceipts } from './system/prompt-receipt.js';
import { declaredTools } from '../../core/tools/registry.js';
import { sessionCatalog } from '../../core/delegation/contract.js';
import type { McpHub } from '../mcp/types.js';
import { workspacePause } from './workspace-check.js';
import { mcpSegment, mcpStateWrites, refusedMcpCall, stepMcp, type StepMcp } from './mcp-offer.js';

/** The result of a step that sent nothing (CP6: it asked for a compaction first). */
const answerless = { finishReason: 'stop', toolCalls: [], textLength: 0 } as const satisfies Partial<ModelStepResult>;

/** Interval between modelStep heartbeats, in ms (the heartbeat timeout is temporal.yaml `activities.model`). */
const HEARTBEAT_EVERY_MS = 2_000;

/** Dependencies of the modelStep activity: the store, the tool sets offers are made from (tool-offer.ts), MCP. */
export interface ModelStepDeps extends ToolOfferSets {
  store: ProjectionStore;
  /** The worker's MCP connections (issue 30); absent: MCP servers are not reachable from this worker. */
  mcp?: McpHub;
}

/**
 * Builds the `modelStep` activity (DESIGN.md §3): persists any
 * workflow-settled tool outcomes (GP9; a settlement that met an already
 * committed result is returned in `reconciled`, so the Temporal history
 * shows which result stands), rolls back what an earlier attempt of the same
 * step left (PR4), assembles the request (request-assembly.ts: SE9, SE27 —
 * an unreadable rule file fails the step `rule_file_unreadable`,
 * non-retryable, before any provider request — and the work state) from the
 * conversation so far (transcript-cache.ts: the worker's cache of closed
 * steps plus only the newer rows) and the inputs it carries, then writes in
 * ONE batch what the request carries (at a turn's first step the session
 * row; the inputs, SE2 applied; the turn's start; `session.provider.request`), streams the provider while
 * heartbeating and emits coalesced `message.part.delta` events, and writes
 * in ONE more batch the usage, the assistant message, its parts (PR9 ids)
 * and one tool-call row per call, with malformed or unknown calls already
 * settled as `blocked` (TD8). Issue 13: its reads and writes do not grow
 * with the session. A workspace missing on this host fails the step
 * `workspace_unavailable` before anything is sent (issue 33). Provider failures become ApplicationFailures typed by
 * the ProviderError code, `nonRetryable` unless retryable, with
 * `nextRetryDelay` from Retry-After (PR2).
 */
export function createModelStep(deps: ModelStepDeps) {
  const steps = new ModelSteps(deps);
  return function modelStep(input: ModelStepInput): Promise<ModelStepResult> {
    return steps.run(input);
  };
}

/** The step's place and attempt, as every helper of one modelStep run needs it. */
interface StepAt {
  input: ModelStepInput;
  sessionId: string;
  attempt: number;
}

/** What the request phase hands the stream phase: the request, and where the step's parts start. */
interface Prepared {
  request: AssembledRequest;
  /** The tools the request offers (none in a discussion turn, GL36). */
  tools: ToolSpec[];
  /** The step's MCP offer (issue 30), for validating its calls. */
  mcp?: StepMcp;
  /** The tokenizer estimate of the request (CP6; recorded with its usage). */
  estimate: { requestTokens: number; estimator: string };
  /** Position of the step's first part (after the inputs it carries). */
  position: number;
  reconciled: Awaited<ReturnType<typeof recordSettled>>;
}

/** The modelStep activity's worker-lifetime state (tool offer, transcript cache, request assembler) and its phases. */
class ModelSteps {
  private readonly store: ProjectionStore;
  private readonly allNames = Object.keys(declaredTools);
  private readonly transcripts: TranscriptCache;
  private readonly requests: RequestAssembler;
  private readonly receipts = new PromptReceipts();

  constructor(private readonly deps: ModelStepDeps) {
    this.store = deps.store;
    this.transcripts = new TranscriptCache(deps.store);
    this.requests = new RequestAssembler(deps.store);
  }

  async run(input: ModelStepInput): Promise<ModelStepResult> {
    const ctx = Context.current();
    const at: StepAt = { input, sessionId: input.meta.sessionId, attempt: ctx.info.attempt };
    const prepared = await this.prepare(at, ctx);
    // CP6: over the threshold, nothing of the step was written and nothing is sent.
    if ('compactionRequired' in prepared) return { ...answerless, compactionRequired: prepared.compactionRequired };
    const response = await this.streamAnswer(at, ctx, prepared);
    const planned = await this.recordAnswer(at, prepared, response);
    return {
      finishReason: response.finishReason,
      toolCalls: planned,
      textLength: response.text.length,
      ...(response.usage ? { usage: response.usage } : {}),
      ...(prepared.reconciled.length ? { reconciled: prepared.reconciled } : {}),
    };
  }

  /**
   * What the step offers: the built-in tools of the session's catalog and
   * the direct MCP tools, `tool_search` while MCP schemas are deferred
   * (issue 30, mcp-offer.ts); nothing in a discussion turn (GL36).
   */
  private async offer(input: ModelStepInput): Promise<{ tools: ToolSpec[]; mcp?: StepMcp }> {
    if (input.toolsDisabled) return { tools: [] };
    const { meta } = input;
    const builtIn = this.offered(meta);
    if (!meta.mcp || !this.deps.mcp) return { tools: builtIn };
    const search = this.deps.toolSpecs.find((t) => this.deps.mcpOnly?.has(t.name));
    const catalog = sessionCatalog(meta, this.allNames);
    // Connecting a server may take its startup limit: the step heartbeats meanwhile.
    const ctx = Context.current();
    const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
    const mcp = await stepMcp(this.deps.mcp, this.store, meta, catalog, search?.name ?? '').finally(() =>
      clearInterval(beat),
    );
    if (!mcp) return { tools: builtIn };
    return { tools: [...builtIn, ...(mcp.searchOffered && search ? [search] : []), ...mcp.specs], mcp };
  }

  /** The built-in tools a session is offered (tool-offer.ts). */
  private offered(meta: ModelStepInput['meta']): ToolSpec[] {
    return offeredBuiltIns(meta, this.deps, this.allNames);
  }

  /** The tools of the session's catalog its settings leave out, with why (a call of one is refused with it). */
  private withheld(meta: ModelStepInput['meta']): ReadonlyMap<string, string> {
    const catalog = meta.tools || meta.agent ? new Set(sessionCatalog(meta, this.allNames)) : undefined;
    const out = new Map<string, string>();
    for (const [name, why] of this.deps.conditional ?? []) {
      const reason = catalog && !catalog.has(name) ? undefined : why(meta);
      if (reason) out.set(name, reason);
    }
    return out;
  }

  /**
   * Settles workflow-settled outcomes, rolls back an earlier attempt (PR4),
   * assembles the request and writes, in one batch, what it carries (SE9).
   */
  private async prepare(
    { input, sessionId, attempt }: StepAt,
    ctx: Context,
  ): Promise<Prepared | { compactionRequired: CompactionRequired }> {
    const { store } = this;
    const { meta, turn, step } = input;
    const now = () => Date.now();
    const reconciled = input.settled.length ? await recordSettled(store, sessionId, input.settled, now()) : [];
    // The conversation so far: the steps before this one (issue 13: only what is new is read).
    let earlier = await this.transcripts.before(sessionId, { turn, step });
    // Rollback of what an earlier attempt of this step left (PR4): the step is written again below.
    let rolledBack: StepDeletion | undefined;
    if (attempt > 1 || earlier.rowsAtCurrent) {
      rolledBack = await store.deleteStep(sessionId, turn, step);
      if (earlier.rowsAtCurrent) earlier = await this.transcripts.before(sessionId, { turn, step });
    }
    const carried = carriedInputs(sessionId, turn, step, input.newInputs, now());
    // What the step carries is recorded even when its request cannot be assembled (SE27: an unreadable rule file).
    const carriedWrites: ProjectionWrite[] = [
      // Every turn's session row (a continued or resumed session may run on another route, provider or model).
      ...(step === 0 ? [sessionTurnWrite(input, ctx.info.workflowExecution?.workflowId, now())] : []),
      ...(rolledBack ? [rollbackEvent(sessionId, { turn, step, attempt }, meta, rolledBack, now())] : []),
      ...carried.writes,
      ...(step === 0 ? [turnStartedEvent(sessionId, turn, input, now())] : []),
    ];
    await this.refuseMissingWorkspace(input, carriedWrites);
    const { tools, mcp } = await this.offer(input);
    let request: AssembledRequest;
    try {
      const conversation = [...earlier.messages, ...stepsToMessages(carried.rows)];
      request = await this.requests.assemble(input, conversation, now(), {
        offered: tools.map((t) => t.name),
        ...(mcp ? { extra: mcpSegment(mcp) } : {}),
      });
    } catch (err) {
      await store.writeBatch(sessionId, carriedWrites);
      throw err;
    }
    const estimate = requestEstimate(request.messages, tools, meta.provider.transport);
    const crossing = input.mayCompact
      ? await thresholdCrossing(store, {
          meta,
          estimate,
          summary: earlier.summary,
          compactableTokens: () => compactableTokens(earlier.messages, meta.provider.transport),
        })
      : null;
    if (crossing) {
      // CP6: before any request record; the step's inputs are carried again once compacted.
      if (rolledBack)
        await store.writeBatch(sessionId, [rollbackEvent(sessionId, { turn, step, attempt }, meta, rolledBack, now())]);
      return { compactionRequired: crossing };
    }
    await this.recordRequest({ input, sessionId, attempt }, { carriedWrites, mcp, request, tools, estimate });
    return { request, tools, ...(mcp ? { mcp } : {}), estimate, position: carried.nextPosition, reconciled };
  }

  /**
   * Issue 33: the request is assembled from the workspace (rule files, git
   * facts) and its calls run there, so a workspace missing on this host
   * stops the step before any MCP connection or provider request: what the
   * step carries is recorded (as for an unreadable rule file) and the step
   * fails non-retryable `workspace_unavailable`, which pauses the turn
   * (PAUSING_FAILURES) until a person restores it and resumes.
   * @throws ApplicationFailure type `workspace_unavailable` naming the directory and the host.
   */
  private async refuseMissingWorkspace(input: ModelStepInput, carriedWrites: ProjectionWrite[]): Promise<void> {
    const { meta } = input;
    const pause = workspacePause(
      { sessionId: meta.sessionId, goalId: meta.goal?.goalId },
      meta.workspace,
      meta.route?.host,
    );
    if (!pause) return;
    await this.store.writeBatch(meta.sessionId, carriedWrites);
    throw ApplicationFailure.create({ message: pause.message, type: pause.reason, nonRetryable: true });
  }

  /**
   * Before the request, one batch: what it carries (SE9: reconstructible from the projection once sent),
   * with the prompt receipt (SE28: the system segments' ids, sources and digests, and their texts).
   */
  private async recordRequest(
    { input, sessionId, attempt }: StepAt,
    r: {
      carriedWrites: ProjectionWrite[];
      mcp: StepMcp | undefined;
      request: AssembledRequest;
      tools: ToolSpec[];
      estimate: Prepared['estimate'];
    },
  ): Promise<void> {
    const { store } = this;
    const { meta, turn, step } = input;
    const { carriedWrites, mcp, request, tools, estimate } = r;
    const now = () => Date.now();
    const at = { sessionId, turn, step, attempt, atMs: now() };
    const receipt = this.receipts.writes(
      at,
      request.segments,
      tools.map((t) => t.name),
    );
    await store
      .writeBatch(sessionId, [
        ...carriedWrites,
        ...(mcp ? await mcpStateWrites(store, sessionId, mcp.servers, now()) : []),
        ...receipt,
        {
          kind: 'event',
          event: {
            id: `step_${turn}_${step}:request:${attempt}`,
            sessionId,
            type: EV.providerRequest,
            data: {
              turn,
              step,
              attempt,
              provider: meta.provider.id,
              model: meta.model,
              surface: meta.provider.transport,
              messages: request.messages.length,
              ...request.counts,
              estimatedTokens: estimate.requestTokens,
              estimator: estimate.estimator,
            },
            atMs: now(),
          },
        },
      ])
      .catch((err: unknown) => {
        this.receipts.forget(sessionId); // its segment texts may not be stored: write them with the next receipt
        throw err;
      });
  }

  /** Streams the provider's answer while heartbeating, emitting coalesced `message.part.delta` events. */
  private async streamAnswer(
    { input, sessionId, attempt }: StepAt,
    ctx: Context,
    { request, tools }: Prepared,
  ): Promise<ModelResponse> {
    const { store } = this;
    const { meta, turn, step } = input;
    const messageId = assistantMessageId(turn, step);
    let deltas = 0;
    const buffer = new DeltaBuffer((text) =>
      store
        .appendEvent({
          id: `${messageId}:a${attempt}:d${deltas++}`,
          sessionId,
          type: EV.partDelta,
          data: { messageId, text },
          atMs: Date.now(),
        })
        .then(() => undefined),
    );
    // Heartbeat on a timer, not per chunk: the provider may legitimately take
    // minutes before its first byte (PR5 header timeout 330 s), far beyond the
    // activity's heartbeat timeout; stalls inside the stream are the adapter's
    // chunk timeout's job.
    const { stream } = request;
    const beat = setInterval(() => ctx.heartbeat(), HEARTBEAT_EVERY_MS);
    try {
      const response = await stream(
        meta.provider,
        // GL36: a discussion turn offers no tools at all.
        { model: meta.model, messages: request.messages, tools },
        { signal: ctx.cancellationSignal, onTextDelta: (t) => buffer.push(t) },
      );
      await buffer.flush();
      return response;
    } catch (err) {
      await buffer.flush().catch(() => undefined);
      throw await providerFailure(err, {
        store,
        sessionId,
        turn,
        step,
        attempt,
        retry: meta.provider.retry,
        nowMs: Date.now(),
      });
    } finally {
      clearInterval(beat);
    }
  }

  /** After the answer, one batch: usage, the part ledger in provider order (PR9), calls validated and planned (TD8). */
  private async recordAnswer(
    { input, sessionId, attempt }: StepAt,
    { estimate, position, mcp, tools }: Prepared,
    response: ModelResponse,
  ): Promise<ModelStepResult['toolCalls']> {
    const { store } = this;
    const { meta, turn, step } = input;
    const messageId = assistantMessageId(turn, step);
    const now = () => Date.now();
    const usage = await usageEvent(
      store,
      { sessionId, turn, step, attempt, atMs: now() },
      response,
      estimate,
      meta.context,
    );
    const ledger = await stepLedger(
      {
        sessionId,
        turn,
        step,
        firstPosition: position,
        atMs: now(),
        ...(input.toolsDisabled ? { toolsDisabled: true } : {}),
        ...(response.requestId ? { requestId: response.requestId } : {}),
        ...(meta.permission ? { subjectsIn: meta.workspace } : {}),
        ...(meta.tools || meta.agent ? { catalog: sessionCatalog(meta, this.allNames) } : {}),
        ...(tools.length > 0 ? { offered: tools.map((t) => t.name), withheld: this.withheld(meta) } : {}),
        ...(mcp
          ? { mcp: mcp.tools, refusedMcp: (name: string) => refusedMcpCall(mcp, name, meta.mcp?.access ?? 'all') }
          : {}),
      },
      response.parts,
    );
    const planned = ledger.planned;
    await store.writeBatch(sessionId, [
      ...(usage ? [{ kind: 'event', event: usage } satisfies ProjectionWrite] : []),
      ...ledger.writes,
      {
        kind: 'event',
        event: {
          id: `${messageId}:completed`,
          sessionId,
          type: EV.messageCompleted,
          data: {
            messageId,
            turn,
            step,
            finishReason: response.finishReason,
            toolCalls: planned.length,
            usage: response.usage ?? null,
          },
          atMs: now(),
        },
      },
    ]);
    return planned;
  }
}

/**
 * Estimated tokens of what a compaction could summarize in `earlier`: its
 * conversation without the system segments and the anchor (the session's
 * first user message, never summarized: CP10).
 */
function compactableTokens(earlier: readonly ModelMessage[], surface: WireSurface): number {
  const firstUser = earlier.findIndex((m) => m.role === 'user');
  const steps = earlier.filter((m, i) => m.role !== 'system' && i !== firstUser);
  return steps.length === 0 ? 0 : estimateRequestTokens(steps, [], estimatorFor(surface)).tokens;
}
