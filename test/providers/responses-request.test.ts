/**
 * The Responses request as the local provider captured it over real HTTP
 * (PR8, PR10): input items in transcript order, capsules and argument
 * strings byte-for-byte, `include` only with encrypted replay, tool shape.
 */
import { describe, expect, it } from 'vitest';
import { streamResponses } from '../../activities/providers/responses.js';
import type { ModelRequest, ProviderConfig } from '../../activities/providers/types.js';
import type { ProviderReasoning } from '../../core/messages.js';
import { providerConfig, TEST_KEY, useLocalProviders } from './helpers.js';

const { serve } = useLocalProviders();

const responsesCfg = (url: string, over: Partial<ProviderConfig> = {}): ProviderConfig =>
  providerConfig(url, { transport: 'responses', reasoningReplay: 'encrypted', ...over });

/** An opaque capsule with characters a re-serialization could change. */
const CAPSULE = 'gAAAAB\u00e9/+==\\"quoted\\"\n\u2028tail';
const capsule = (over: Partial<ProviderReasoning> = {}): ProviderReasoning => ({
  provider: 'local',
  model: 'm',
  surface: 'responses',
  itemId: 'rs_1',
  encryptedContent: CAPSULE,
  summary: ['**Plan**\n\nRead a.ts.', 'Then list.'],
  producedAtMs: 1,
  ...over,
});
/** Argument bytes as a model streamed them: spacing, key order and escapes kept. */
const ARGS = '{ "path" :"a.ts",  "note":"caf\\u00e9" }';

const history: ModelRequest = {
  model: 'm',
  messages: [
    { role: 'system', text: 'You are Zuno.' },
    { role: 'system', text: 'Be brief.' },
    { role: 'user', text: 'Read a.ts then list.' },
    {
      role: 'assistant',
      text: 'Reading.',
      toolCalls: [{ callId: 'call_A', name: 'read', argsJson: ARGS }],
      parts: [
        { kind: 'reasoning', text: '**Plan**\n\nRead a.ts.\n\nThen list.', providerReasoning: capsule() },
        { kind: 'text', text: 'Reading.' },
        { kind: 'tool_call', callId: 'call_A', name: 'read', argsJson: ARGS },
      ],
    },
    { role: 'tool', callId: 'call_A', name: 'read', content: 'export {}' },
    {
      role: 'assistant',
      text: '',
      toolCalls: [{ callId: 'call_B', name: 'gone_tool', argsJson: '{"x":1' }],
      parts: [
        { kind: 'reasoning', text: 'withheld by the policy: no capsule' },
        { kind: 'reasoning', text: '', providerReasoning: capsule({ itemId: undefined, summary: undefined }) },
        { kind: 'tool_call', callId: 'call_B', name: 'gone_tool', argsJson: '{"x":1' },
      ],
    },
    { role: 'tool', callId: 'call_B', name: 'gone_tool', content: 'unknown tool' },
    { role: 'system', text: 'Late note.' },
    { role: 'assistant', text: 'Legacy view.', toolCalls: [] },
    { role: 'user', text: 'Go on.' },
  ],
  tools: [
    {
      name: 'read',
      description: 'Read a file.',
      parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
    },
  ],
};

const expectedInput = [
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Read a.ts then list.' }] },
  {
    type: 'reasoning',
    id: 'rs_1',
    encrypted_content: CAPSULE,
    summary: [
      { type: 'summary_text', text: '**Plan**\n\nRead a.ts.' },
      { type: 'summary_text', text: 'Then list.' },
    ],
  },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading.' }] },
  { type: 'function_call', call_id: 'call_A', name: 'read', arguments: ARGS },
  { type: 'function_call_output', call_id: 'call_A', output: 'export {}' },
  { type: 'reasoning', encrypted_content: CAPSULE, summary: [] },
  { type: 'function_call', call_id: 'call_B', name: 'gone_tool', arguments: '{"x":1' },
  { type: 'function_call_output', call_id: 'call_B', output: 'unknown tool' },
  { type: 'message', role: 'developer', content: [{ type: 'input_text', text: 'Late note.' }] },
  { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Legacy view.' }] },
  { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'Go on.' }] },
];

describe('Responses request body (captured by the local server)', () => {
  it('renders the history in order: capsules and argument bytes verbatim right before their output, leading system text as instructions, include with encrypted replay', async () => {
    const server = await serve({ replies: [{ text: 'ok' }] });
    await streamResponses(responsesCfg(server.url), history);
    expect(server.requestSurfaces).toEqual(['responses']);
    const body = server.requests[0]!;
    expect(Object.keys(body)).toEqual(['model', 'instructions', 'input', 'tools', 'include', 'stream', 'store']);
    expect(body).toMatchObject({
      model: 'm',
      instructions: 'You are Zuno.\n\nBe brief.',
      include: ['reasoning.encrypted_content'],
      stream: true,
      store: false,
    });
    expect(body.input).toEqual(expectedInput);
    // Key order inside a replayed reasoning item, as the brief's wire shape.
    expect(Object.keys((body.input as Record<string, unknown>[])[1]!)).toEqual([
      'type',
      'id',
      'encrypted_content',
      'summary',
    ]);
    expect(body.tools).toEqual([
      {
        type: 'function',
        name: 'read',
        description: 'Read a file.',
        parameters: { type: 'object', properties: { path: { type: 'string' } }, required: ['path'] },
        strict: false,
      },
    ]);
    expect(server.requestHeaders[0]!.authorization).toBe(`Bearer ${TEST_KEY}`);
    expect(server.requestHeaders[0]!.accept).toBe('text/event-stream');
  });

  it('without encrypted replay there is no include (and no tools key when no tools are offered)', async () => {
    const server = await serve({ replies: [{ text: 'ok' }, { text: 'ok' }] });
    await streamResponses(responsesCfg(server.url, { reasoningReplay: 'off' }), { ...history, tools: [] });
    await streamResponses(responsesCfg(server.url, { reasoningReplay: undefined }), {
      model: 'm',
      messages: [{ role: 'user', text: 'hi' }],
      tools: [],
    });
    for (const body of server.requests) {
      expect('include' in body).toBe(false);
      expect('tools' in body).toBe(false);
    }
    expect('instructions' in server.requests[1]!).toBe(false);
    expect(server.requests[1]!.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] },
    ]);
  });

  it('a streamed answer fed back as history replays its own capsules and call bytes in stream order', async () => {
    const server = await serve({
      replies: [
        {
          output: [
            { reasoning: 'First look.', capsule: 'cap-one==' },
            { text: 'Reading.' },
            { toolCall: { name: 'read', arguments: ARGS, id: 'call_r' } },
            { redactedReasoning: 'cap-two==' },
            { toolCall: { name: 'glob', arguments: '{"pattern":"*"}', id: 'call_g' } },
          ],
        },
        { text: 'ok' },
      ],
    });
    const first = await streamResponses(responsesCfg(server.url), {
      model: 'm',
      messages: [{ role: 'user', text: 'go' }],
      tools: [],
    });
    await streamResponses(responsesCfg(server.url), {
      model: 'm',
      messages: [
        { role: 'user', text: 'go' },
        { role: 'assistant', text: first.text, toolCalls: first.toolCalls, parts: first.parts },
        { role: 'tool', callId: 'call_r', name: 'read', content: 'r' },
        { role: 'tool', callId: 'call_g', name: 'glob', content: 'g' },
      ],
      tools: [],
    });
    expect(server.requests[1]!.input).toEqual([
      { type: 'message', role: 'user', content: [{ type: 'input_text', text: 'go' }] },
      {
        type: 'reasoning',
        id: 'rs_local_1_0',
        encrypted_content: 'cap-one==',
        summary: [{ type: 'summary_text', text: 'First look.' }],
      },
      { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'Reading.' }] },
      { type: 'function_call', call_id: 'call_r', name: 'read', arguments: ARGS },
      { type: 'reasoning', id: 'rs_local_1_3', encrypted_content: 'cap-two==', summary: [] },
      { type: 'function_call', call_id: 'call_g', name: 'glob', arguments: '{"pattern":"*"}' },
      { type: 'function_call_output', call_id: 'call_r', output: 'r' },
      { type: 'function_call_output', call_id: 'call_g', output: 'g' },
    ]);
  });
});
