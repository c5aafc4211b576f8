import { describe, expect, it } from 'vitest';
import type { PartRow, ToolCallRow, TranscriptRows } from '../../activities/projection/types.js';
import { contextLimitOf } from '../../activities/providers/errors.js';
import { elideOldToolOutputs, elidedReference } from '../../activities/session/compaction/elide.js';
import { fragment, projectStep, projectSteps } from '../../activities/session/compaction/project.js';
import { groupSteps } from '../../activities/session/compaction/steps.js';
import type { ModelMessage } from '../../core/messages.js';
import { conversationPosition } from '../../local-provider/position.js';

/** The compaction's pure parts: the tool-agnostic projection (CP5, CP14), old-output elision, the context-limit parse. */

const S = 'ses_p';
const part = (turn: number, step: number, position: number, over: Partial<PartRow>): PartRow => ({
  id: `prt_${turn}_${step}_${position}_${over.kind ?? 'text'}`,
  sessionId: S,
  messageId: `msg_${turn}_${step}`,
  turn,
  step,
  position,
  kind: 'text',
  createdAtMs: 0,
  ...over,
});
const call = (
  turn: number,
  step: number,
  position: number,
  output: string,
  argsJson = '{"path":"a.ts"}',
): ToolCallRow => ({
  id: `tc_${turn}_${step}_${position}`,
  sessionId: S,
  turn,
  step,
  position,
  callId: `call_${turn}_${step}_${position}`,
  tool: 'read',
  argsJson,
  status: 'completed',
  outcome: 'ok',
  output,
});

/** One step: the user's text (step 0), reasoning with a capsule, text, one call and its result. */
function step(turn: number, s: number, output: string, user?: string): TranscriptRows {
  const c = call(turn, s, 3, output);
  return {
    messages: [
      ...(user ? [{ id: `msg_in_${turn}`, sessionId: S, role: 'user' as const, turn, step: s, createdAtMs: 0 }] : []),
      { id: `msg_${turn}_${s}`, sessionId: S, role: 'assistant', turn, step: s, createdAtMs: 0 },
    ],
    parts: [
      ...(user ? [part(turn, s, 0, { messageId: `msg_in_${turn}`, text: user })] : []),
      part(turn, s, 1, {
        kind: 'reasoning',
        text: 'I should read a.ts.',
        metadata: { providerReasoning: { encryptedContent: 'ENCRYPTED-CAPSULE-BYTES', provider: 'p', model: 'm' } },
      }),
      part(turn, s, 2, { text: 'Reading.' }),
      part(turn, s, 3, { kind: 'tool_call', toolCallId: c.id }),
    ],
    toolCalls: [c],
  };
}
const join = (...rs: TranscriptRows[]): TranscriptRows => ({
  messages: rs.flatMap((r) => r.messages),
  parts: rs.flatMap((r) => r.parts),
  toolCalls: rs.flatMap((r) => r.toolCalls),
});

describe('the compaction projection (CP5, CP14)', () => {
  it('keeps a head and a tail around a marked gap', () => {
    const text = 'a'.repeat(100) + 'b'.repeat(12_345) + 'c'.repeat(50);
    const out = fragment(text, 150);
    expect(out.startsWith('a'.repeat(100))).toBe(true);
    expect(out.endsWith('c'.repeat(50))).toBe(true);
    expect(out).toContain('…[12 345 chars omitted]…');
    expect(fragment('short', 150)).toBe('short');
  });

  it('renders a call and its result as adjacent inert JSON lines, role-labelled, with no capsule', () => {
    const [s] = groupSteps(step(0, 0, 'x'.repeat(10_000), 'Fix the parser'));
    const text = projectStep(s!);
    const lines = text.split('\n');
    expect(lines[0]).toBe('## step 0.0');
    expect(lines[1]).toBe('user: Fix the parser');
    expect(text).toContain('assistant reasoning (historical): I should read a.ts.');
    expect(text).toContain('assistant: Reading.');
    const callAt = lines.findIndex((l) => l.startsWith('tool call: '));
    expect(lines[callAt + 1]!.startsWith('tool result: ')).toBe(true);
    const callJson = JSON.parse(lines[callAt]!.slice('tool call: '.length)) as Record<string, unknown>;
    expect(callJson).toMatchObject({ call: 'call_0_0_3', tool: 'read', row: 'tc_0_0_3' });
    const result = JSON.parse(lines[callAt + 1]!.slice('tool result: '.length)) as { output: string };
    expect(result.output).toMatch(/…\[\d[\d ]* chars omitted\]…/);
    expect(result.output.length).toBeLessThan(3_200);
    expect(text).not.toContain('ENCRYPTED-CAPSULE-BYTES');
  });

  it('leaves whole steps out of the middle when the record is too long, never splitting a call from its result', () => {
    const rows = join(...Array.from({ length: 30 }, (_, i) => step(0, i, `output ${i} `.repeat(200))));
    const text = projectSteps(groupSteps(rows), {
      textChars: 500,
      argsChars: 200,
      outputChars: 600,
      reasoningChars: 200,
      totalChars: 8_000,
    });
    expect(text.length).toBeLessThanOrEqual(8_200);
    expect(text).toMatch(/\[… \d+ steps left out here: the record was too long …\]/);
    expect(text).toContain('## step 0.0');
    expect(text).toContain('## step 0.29');
    for (const block of text.split('\n\n').filter((b) => b.startsWith('## step'))) {
      expect(block.split('\n').filter((l) => l.startsWith('tool call: ')).length).toBe(
        block.split('\n').filter((l) => l.startsWith('tool result: ')).length,
      );
    }
  });
});

describe('old tool outputs in a request (issue 28 item 5)', () => {
  const tool = (i: number, chars: number): ModelMessage => ({
    role: 'tool',
    callId: `c${i}`,
    name: 'read',
    content: `${i}:`.padEnd(chars, 'z'),
  });
  const assistant = (i: number): ModelMessage => ({
    role: 'assistant',
    text: '',
    toolCalls: [{ callId: `c${i}`, name: 'read', argsJson: '{}' }],
  });

  it('elides long outputs older than the retained zone and keeps recent and short ones verbatim', () => {
    const conversation: ModelMessage[] = [{ role: 'user', text: 'go' }];
    for (let i = 0; i < 10; i++) conversation.push(assistant(i), tool(i, i === 1 ? 500 : 8_000));
    const { messages, elided } = elideOldToolOutputs(conversation, 4_000);
    const tools = messages.filter((m): m is Extract<ModelMessage, { role: 'tool' }> => m.role === 'tool');
    expect(elided).toBeGreaterThan(0);
    expect(tools[0]!.content).toContain(elidedReference('read', 'c0', 8_000));
    expect(tools[0]!.content.length).toBeLessThan(1_500);
    expect(tools[1]).toEqual(conversation[4]); // short: verbatim
    expect(tools[9]!.content.length).toBe(8_000);
    expect(messages.length).toBe(conversation.length);
  });

  it('keeps a receipt line that sat in the elided gap', () => {
    const receipt = '[verification rcp_abc123] passed · exit 0 · authoritative (bash, pipefail)';
    const output = `${'a'.repeat(3_000)}\n${receipt}\n${'b'.repeat(3_000)}`;
    const conversation: ModelMessage[] = [
      { role: 'user', text: 'go' },
      assistant(0),
      { role: 'tool', callId: 'c0', name: 'shell', content: output },
      ...Array.from({ length: 8 }, (_, i) => [assistant(i + 1), tool(i + 1, 8_000)]).flat(),
    ];
    const first = elideOldToolOutputs(conversation, 4_000).messages[2] as { content: string };
    expect(first.content.length).toBeLessThan(1_500);
    expect(first.content).toContain(receipt);
    const [s] = groupSteps({
      messages: [{ id: 'msg_0_0', sessionId: S, role: 'assistant', turn: 0, step: 0, createdAtMs: 0 }],
      parts: [part(0, 0, 0, { kind: 'tool_call', toolCallId: 'tc_0_0_0' })],
      toolCalls: [call(0, 0, 0, output)],
    });
    expect(projectStep(s!)).toContain('"receipts":["rcp_abc123"]');
  });

  it('moves the cut only in steps of half the retained zone (a stable prefix for prompt caches)', () => {
    const conversation: ModelMessage[] = [{ role: 'user', text: 'go' }];
    for (let i = 0; i < 6; i++) conversation.push(assistant(i), tool(i, 8_000));
    const a = elideOldToolOutputs(conversation, 6_000).messages;
    const b = elideOldToolOutputs([...conversation, { role: 'user', text: 'x'.repeat(400) }], 6_000).messages;
    expect(b.slice(0, a.length)).toEqual(a);
  });
});

describe('context-limit errors (CP8)', () => {
  it('reads used and limit from OpenAI and Anthropic messages', () => {
    expect(
      contextLimitOf(
        'context_length_exceeded',
        "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens.",
      ),
    ).toEqual({ used: 130512, limit: 128000 });
    expect(
      contextLimitOf('invalid_request_error', 'HTTP 400: prompt is too long: 210345 tokens > 200000 maximum'),
    ).toEqual({
      used: 210345,
      limit: 200000,
    });
    expect(contextLimitOf('request_too_large', 'Request exceeds the maximum allowed number of bytes.')).toEqual({});
    expect(contextLimitOf('invalid_request_error', 'messages: field required')).toBeUndefined();
  });
});

describe('the scripted position of a compacted request', () => {
  it('counts the steps and user messages the summary replaces', () => {
    const sentence = 'This summary replaces 7 earlier model steps and 2 earlier user messages of this session.';
    const chat = {
      messages: [
        { role: 'system', content: `base\n\n${sentence}` },
        { role: 'user', content: 'hi' },
      ],
    };
    expect(conversationPosition('chat-completions', chat)).toEqual({ steps: 7, turns: 3 });
    const responses = { instructions: sentence, input: [{ role: 'user', content: 'hi' }] };
    expect(conversationPosition('responses', responses)).toEqual({ steps: 7, turns: 3 });
    const anthropic = { system: sentence, messages: [{ role: 'user', content: 'hi' }] };
    expect(conversationPosition('anthropic-messages', anthropic)).toEqual({ steps: 7, turns: 3 });
    // The anchor and the next turn's input, merged by the Anthropic adapter, are two turns.
    const merged = {
      system: sentence,
      messages: [
        {
          role: 'user',
          content: [
            { type: 'text', text: 'anchor' },
            { type: 'text', text: 'next' },
          ],
        },
      ],
    };
    expect(conversationPosition('anthropic-messages', merged)).toEqual({ steps: 7, turns: 4 });
  });
});
