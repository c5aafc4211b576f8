/**
 * The peer's activities (see workflow.ts): one model request through Zuno's
 * own Chat Completions adapter, and one `read` through Zuno's own `read`
 * implementation — so the comparison measures orchestration, not the tool or
 * the wire code.
 */
import { adapterFor } from '../../activities/session/provider-call.js';
import type { ModelMessage, ToolCallRequest } from '../../core/messages.js';
import type { ProviderConfig } from '../../core/provider-config.js';
import { toolImplementations, toolSpecs } from '../../activities/tools/index.js';

/** The peer's activity functions. */
export interface PeerActivities {
  peerModel(input: {
    provider: ProviderConfig;
    model: string;
    messages: ModelMessage[];
  }): Promise<{ text: string; toolCalls: ToolCallRequest[] }>;
  peerRead(input: { workspace: string; callId: string; argsJson: string }): Promise<string>;
}

/** The peer's activities. */
export function createPeerActivities(): PeerActivities {
  const tools = toolSpecs(['read']);
  return {
    async peerModel({ provider, model, messages }) {
      const r = await adapterFor(provider.transport)!(provider, { model, messages, tools }, {});
      return { text: r.text, toolCalls: r.toolCalls };
    },
    async peerRead({ workspace, callId, argsJson }) {
      const r = await toolImplementations.read!.run(JSON.parse(argsJson), {
        workspace,
        sessionId: 'ses_peer',
        rowId: `tc_peer_${callId}`,
        callId,
      });
      if (r.isError) throw new Error(`peer read failed: ${r.output}`);
      return r.output;
    },
  };
}
