import { describe, expect, it } from 'vitest';
import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import type { ModelMessage, ToolSpec } from '../../core/messages.js';
import {
  ANTHROPIC_FACTOR,
  CALL_OVERHEAD_TOKENS,
  MESSAGE_OVERHEAD_TOKENS,
  REQUEST_OVERHEAD_TOKENS,
  estimateRequestTokens,
  estimateTextTokens,
  estimatorById,
  estimatorFor,
  requestEstimate,
} from '../../activities/session/context/estimator.js';

const reasoning = {
  provider: 'openai',
  model: 'gpt-5',
  surface: 'responses' as const,
  encryptedContent: 'gAAAA'.repeat(2_000),
  producedAtMs: 0,
};

const messages: ModelMessage[] = [
  { role: 'system', text: 'You are Zuno.', segment: 'system.base' },
  { role: 'user', text: 'Why does the login test fail?' },
  {
    role: 'assistant',
    text: 'Let me look.',
    toolCalls: [{ callId: 'call_1', name: 'read', argsJson: '{"path":"src/login.ts"}' }],
    parts: [
      { kind: 'reasoning', text: 'Read the test first.', providerReasoning: reasoning },
      { kind: 'text', text: 'Let me look.' },
      { kind: 'tool_call', callId: 'call_1', name: 'read', argsJson: '{"path":"src/login.ts"}' },
    ],
  },
  { role: 'tool', callId: 'call_1', name: 'read', content: 'export function login() { return false; }' },
];
const tools: ToolSpec[] = [
  {
    name: 'read',
    description: 'Read a file.',
    parameters: { type: 'object', properties: { path: { type: 'string' } } },
  },
];

describe('request token estimates (CP6, PR11)', () => {
  it('OpenAI surfaces count with o200k_base; Anthropic with o200k_base times its factor, named as such', () => {
    expect(estimatorFor('chat-completions').id).toBe('o200k_base');
    expect(estimatorFor('responses').id).toBe('o200k_base');
    expect(estimatorFor('anthropic-messages').id).toBe('o200k_base≈anthropic');
    expect(estimatorById('o200k_base≈anthropic')).toBe(estimatorFor('anthropic-messages'));
    expect(estimatorById('chars/4').id).toBe('o200k_base');
    expect(estimateTextTokens('hello world')).toBe(2);
    expect(estimateTextTokens('hello world', estimatorFor('anthropic-messages'))).toBe(Math.ceil(2 * ANTHROPIC_FACTOR));
  });

  it('counts texts, calls, results, reasoning text and schemas plus documented overheads — never capsules', () => {
    const c = (t: string) => countTokens(t);
    const expected =
      REQUEST_OVERHEAD_TOKENS +
      (MESSAGE_OVERHEAD_TOKENS + c('You are Zuno.')) +
      (MESSAGE_OVERHEAD_TOKENS + c('Why does the login test fail?')) +
      (MESSAGE_OVERHEAD_TOKENS +
        c('Read the test first.') +
        c('Let me look.') +
        CALL_OVERHEAD_TOKENS +
        c('read') +
        c('{"path":"src/login.ts"}')) +
      (MESSAGE_OVERHEAD_TOKENS + CALL_OVERHEAD_TOKENS + c('read') + c('export function login() { return false; }')) +
      (MESSAGE_OVERHEAD_TOKENS + c(JSON.stringify(tools[0])));
    expect(estimateRequestTokens(messages, tools)).toEqual({ tokens: expected, estimator: 'o200k_base' });
    // The 10 000-character capsule adds nothing.
    expect(expected).toBeLessThan(200);
    const anthropic = estimateRequestTokens(messages, tools, estimatorFor('anthropic-messages'));
    expect(anthropic).toEqual({ tokens: Math.ceil(expected * ANTHROPIC_FACTOR), estimator: 'o200k_base≈anthropic' });
    expect(requestEstimate(messages, tools, 'responses')).toEqual({ requestTokens: expected, estimator: 'o200k_base' });
  });

  it('an assistant message without parts counts its text and tool calls', () => {
    const bare: ModelMessage = {
      role: 'assistant',
      text: 'ok',
      toolCalls: [{ callId: 'c', name: 'shell', argsJson: '{"cmd":"ls"}' }],
    };
    expect(estimateRequestTokens([bare], []).tokens).toBe(
      REQUEST_OVERHEAD_TOKENS +
        MESSAGE_OVERHEAD_TOKENS +
        countTokens('ok') +
        CALL_OVERHEAD_TOKENS +
        countTokens('shell') +
        countTokens('{"cmd":"ls"}'),
    );
  });

  it('special-token text in a transcript is ordinary text, not an error', () => {
    expect(estimateTextTokens('see <|endoftext|> in the log')).toBeGreaterThan(5);
    expect(estimateRequestTokens([{ role: 'user', text: '<|im_start|>' }], []).tokens).toBeGreaterThan(0);
  });
});
