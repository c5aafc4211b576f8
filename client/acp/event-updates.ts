/**
 * Stored events → ACP `session/update` payloads (SF1, SF12, SF13): one
 * mapping for the live pump and for `session/load` replay, so a replayed
 * session reads as it did live. Assistant text deltas become
 * `agent_message_chunk`s, tool events `tool_call`/`tool_call_update`s,
 * usage snapshots `usage_update`s; events with no ACP counterpart map to
 * nothing. Approvals and questions are not updates: the permission bridge
 * asks for them (permission-bridge.ts); the Plan comes from the work state
 * (plan-projection.ts), never from a tool's name (GP29).
 */
import type { SessionUpdate } from '@agentclientprotocol/sdk';
import type { EventRow, ProjectionStore, ToolCallRow } from '../../activities/projection/index.js';
import { EV, parseEvent } from '../../core/events.js';
import { toolCallBlocked, toolCallEnded, toolCallInterrupted, toolCallStarted } from './tool-updates.js';

/**
 * Maps one session's events in order. Keeps which calls the client has
 * been told about, so a call first seen at its end (settled `not_run`,
 * blocked) is announced with a `tool_call` before its update.
 */
export class EventMapper {
  private readonly announced = new Set<string>();

  /**
   * @param workspace the session's workspace (absolute): locations resolve against it.
   * @param store where tool-call rows are read.
   */
  constructor(
    private readonly store: Pick<ProjectionStore, 'getToolCall'>,
    private readonly sessionId: string,
    private readonly workspace: string,
  ) {}

  /** The updates of one event (none for events ACP has no word for, or a row this build cannot parse). */
  async map(row: EventRow): Promise<SessionUpdate[]> {
    const e = parseEvent(row);
    if (!e) return [];
    switch (e.type) {
      case EV.partDelta:
        return e.data.text === ''
          ? []
          : [
              {
                sessionUpdate: 'agent_message_chunk',
                content: { type: 'text', text: e.data.text },
                messageId: e.data.messageId,
              },
            ];
      case EV.toolStarted:
        return this.started(e.data.rowId, e.data.tool, e.data.summary);
      case EV.toolCompleted: {
        const facts = await this.facts(e.data.rowId, e.data.tool, '');
        return [
          ...this.announce(facts, 'pending'),
          toolCallEnded(this.workspace, { ...facts, outcome: e.data.outcome, failed: e.data.facts?.failed === true }),
        ];
      }
      case EV.toolBlocked: {
        const facts = await this.facts(e.data.rowId, e.data.tool, '');
        return [...this.announce(facts, 'pending'), toolCallBlocked(e.data.rowId, e.data.category, e.data.message)];
      }
      case EV.toolDispatchInterrupted: {
        const facts = await this.facts(e.data.rowId, e.data.tool, '');
        return [
          ...this.announce(facts, 'pending'),
          toolCallInterrupted(e.data.rowId, e.data.verdict, e.data.outcome, e.data.cause),
        ];
      }
      case EV.usage: {
        const s = e.data.snapshot;
        return s.windowTokens === undefined
          ? []
          : [{ sessionUpdate: 'usage_update', used: s.totalTokens, size: s.windowTokens }];
      }
      default:
        return [];
    }
  }

  private async started(rowId: string, tool: string, summary: string): Promise<SessionUpdate[]> {
    if (this.announced.has(rowId)) {
      // A later attempt of the same call (a Safe tool retried): still running.
      return [{ sessionUpdate: 'tool_call_update', toolCallId: rowId, status: 'in_progress' }];
    }
    return this.announce(await this.facts(rowId, tool, summary), 'in_progress');
  }

  private announce(
    facts: { rowId: string; tool: string; summary: string; row: ToolCallRow | null },
    status: 'pending' | 'in_progress',
  ): SessionUpdate[] {
    if (this.announced.has(facts.rowId)) return [];
    this.announced.add(facts.rowId);
    return [toolCallStarted(this.workspace, facts, status)];
  }

  private async facts(rowId: string, tool: string, summary: string) {
    const row = await this.store.getToolCall(this.sessionId, rowId);
    return { rowId, tool, summary, row };
  }
}
