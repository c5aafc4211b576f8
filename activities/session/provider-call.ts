/**
 * Which wire adapter serves a resolved provider (PR7): one streaming
 * function per surface, all with the same provider-neutral contract.
 */
import type { WireSurface } from '../../core/messages.js';
import { streamAnthropicMessages } from '../providers/anthropic-messages.js';
import { streamChatCompletion } from '../providers/chat-completions.js';
import { streamResponses } from '../providers/responses.js';
import { resolveEndpoint } from '../providers/scripted-endpoint.js';
import type { ModelRequest, ModelResponse, ProviderConfig, StreamHandlers } from '../providers/types.js';

/** A streaming wire adapter: one request, its assembled answer, typed `ProviderError`s. */
export type StreamModel = (cfg: ProviderConfig, req: ModelRequest, handlers: StreamHandlers) => Promise<ModelResponse>;

/** The adapters built so far, by surface. */
const ADAPTERS: Partial<Record<WireSurface, StreamModel>> = {
  'chat-completions': streamChatCompletion,
  'anthropic-messages': streamAnthropicMessages,
  responses: streamResponses,
};

/**
 * The adapter for a surface, or undefined when Zuno cannot speak it yet. It
 * calls the provider's resolved endpoint (`providers/scripted-endpoint.ts`: a scripted
 * model is served by this worker's own local provider).
 */
export function adapterFor(surface: WireSurface): StreamModel | undefined {
  const adapter = ADAPTERS[surface];
  if (!adapter) return undefined;
  return async (cfg, req, handlers) => adapter(await resolveEndpoint(cfg), req, handlers);
}
