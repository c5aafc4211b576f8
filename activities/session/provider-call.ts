/**
 * Which wire adapter serves a resolved provider (PR7): one streaming
 * function per surface, all with the same provider-neutral contract.
 */
import type { WireSurface } from '../../core/messages.js';
import { streamAnthropicMessages } from '../providers/anthropic-messages.js';
import { streamChatCompletion } from '../providers/chat-completions.js';
import { streamResponses } from '../providers/responses.js';
import type { ModelRequest, ModelResponse, ProviderConfig, StreamHandlers } from '../providers/types.js';

/** A streaming wire adapter: one request, its assembled answer, typed `ProviderError`s. */
export type StreamModel = (cfg: ProviderConfig, req: ModelRequest, handlers: StreamHandlers) => Promise<ModelResponse>;

/** The adapters built so far, by surface. */
const ADAPTERS: Partial<Record<WireSurface, StreamModel>> = {
  'chat-completions': streamChatCompletion,
  'anthropic-messages': streamAnthropicMessages,
  responses: streamResponses,
};

/** The adapter for a surface, or undefined when Zuno cannot speak it yet. */
export function adapterFor(surface: WireSurface): StreamModel | undefined {
  return ADAPTERS[surface];
}
