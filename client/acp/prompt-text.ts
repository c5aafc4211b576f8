/**
 * What a `session/prompt` carries, as Zuno's input: the text of its content
 * blocks, and the client message id that makes a resend one input (SE2).
 * Pure.
 */
import { randomUUID } from 'node:crypto';
import { RequestError, type ContentBlock, type PromptRequest } from '@agentclientprotocol/sdk';

/**
 * The prompt's text: text blocks as written, a resource link as its URI, an
 * embedded text resource as its text (with its URI first), joined by blank
 * lines.
 * @throws RequestError -32602 for an image or audio block (not offered in
 *   `promptCapabilities`), an embedded binary resource, or no text at all.
 */
export function promptText(blocks: readonly ContentBlock[]): string {
  const parts = blocks.map((b) => {
    switch (b.type) {
      case 'text':
        return b.text;
      case 'resource_link':
        return b.uri;
      case 'resource':
        if ('text' in b.resource) return `${b.resource.uri}\n${b.resource.text}`;
        throw RequestError.invalidParams({ block: b.type }, 'an embedded binary resource cannot be a prompt');
      default:
        throw RequestError.invalidParams(
          { block: b.type },
          `a prompt block of type ${b.type} is not taken: zuno takes text`,
        );
    }
  });
  const text = parts.join('\n\n');
  if (text.trim() === '') throw RequestError.invalidParams({}, 'the prompt has no text');
  return text;
}

/**
 * The client message id of a prompt: `_meta.clientMessageId` (or the
 * unstable `messageId`) when the client sends one — a resend with the same
 * id is the same input, answered once — else a new `acp-<uuid>`.
 */
export function clientMessageIdOf(req: PromptRequest): string {
  const meta = req._meta?.clientMessageId;
  if (typeof meta === 'string' && meta !== '') return meta;
  const id = (req as { messageId?: unknown }).messageId;
  if (typeof id === 'string' && id !== '') return id;
  return `acp-${randomUUID()}`;
}
