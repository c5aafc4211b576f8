/* eslint-disable @typescript-eslint/no-explicit-any -- ad hoc inspection of JSON wire objects */
/**
 * The local provider picks a scripted reply by the request's conversation
 * position (local-provider/position.ts), on every surface it speaks,
 * over real HTTP: a retried identical request (a model step retried after a
 * crash or a fault) gets the same reply, the next step or turn the next one.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { startLocalProvider, type LocalProvider } from '../../local-provider/server.js';
import type { Script } from '../../local-provider/script.js';

const open: LocalProvider[] = [];
afterEach(async () => {
  await Promise.all(open.splice(0).map((s) => s.close()));
});
async function serve(script: Script): Promise<LocalProvider> {
  const s = await startLocalProvider({ script });
  open.push(s);
  return s;
}

const script: Script = { replies: [{ text: 'first' }, { text: 'second' }, { text: 'third' }] };

/** One surface: its route, headers, request bodies at positions 0..3 (steps 0..2, then a new turn), and the reply text. */
interface Surface {
  name: string;
  route: string;
  headers: Record<string, string>;
  /** `steps` answered steps (each a tool call + its result), then `extraTurns` more user messages. */
  body(steps: number, extraTurns?: number): Record<string, unknown>;
  text(json: any): string;
}

const surfaces: Surface[] = [
  {
    name: 'Chat Completions',
    route: '/chat/completions',
    headers: {},
    body(steps, extraTurns = 0) {
      const messages: unknown[] = [
        { role: 'system', content: 'You are Zuno.' },
        { role: 'user', content: 'hi' },
      ];
      for (let i = 0; i < steps; i++) {
        messages.push(
          {
            role: 'assistant',
            content: null,
            tool_calls: [{ id: `c${i}`, type: 'function', function: { name: 'read', arguments: '{}' } }],
          },
          { role: 'tool', tool_call_id: `c${i}`, content: 'x' },
        );
      }
      for (let i = 0; i < extraTurns; i++) messages.push({ role: 'user', content: 'more' });
      return { model: 'm', messages };
    },
    text: (j) => j.choices[0].message.content,
  },
  {
    name: 'Responses',
    route: '/responses',
    headers: {},
    body(steps, extraTurns = 0) {
      const input: unknown[] = [{ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'hi' }] }];
      for (let i = 0; i < steps; i++) {
        input.push(
          { type: 'reasoning', encrypted_content: 'enc', summary: [] },
          { type: 'message', role: 'assistant', content: [{ type: 'output_text', text: 'looking' }] },
          { type: 'function_call', call_id: `c${i}`, name: 'read', arguments: '{}' },
          { type: 'function_call_output', call_id: `c${i}`, output: 'x' },
        );
      }
      for (let i = 0; i < extraTurns; i++)
        input.push({ type: 'message', role: 'user', content: [{ type: 'input_text', text: 'more' }] });
      return { model: 'm', instructions: 'You are Zuno.', input };
    },
    text: (j) => j.output.find((o: any) => o.type === 'message').content[0].text,
  },
  {
    name: 'Anthropic Messages',
    route: '/messages',
    headers: { 'anthropic-version': '2023-06-01' },
    body(steps, extraTurns = 0) {
      const messages: unknown[] = [{ role: 'user', content: [{ type: 'text', text: 'hi' }] }];
      for (let i = 0; i < steps; i++) {
        messages.push(
          { role: 'assistant', content: [{ type: 'tool_use', id: `t${i}`, name: 'read', input: {} }] },
          { role: 'user', content: [{ type: 'tool_result', tool_use_id: `t${i}`, content: 'x' }] },
        );
      }
      for (let i = 0; i < extraTurns; i++) messages.push({ role: 'user', content: 'more' });
      return { model: 'm', max_tokens: 100, system: 'You are Zuno.', messages };
    },
    text: (j) => j.content.find((b: any) => b.type === 'text').text,
  },
];

async function ask(server: LocalProvider, s: Surface, body: Record<string, unknown>): Promise<Response> {
  return fetch(`${server.url}${s.route}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...s.headers },
    body: JSON.stringify(body),
  });
}
async function reply(server: LocalProvider, s: Surface, body: Record<string, unknown>): Promise<string> {
  const res = await ask(server, s, body);
  expect(res.status).toBe(200);
  return s.text(await res.json());
}

describe('local provider: replies by conversation position', () => {
  it.each(surfaces)(
    '$name: the same request twice gets the same reply; the next position the next reply',
    async (s) => {
      const server = await serve(script);
      expect(await reply(server, s, s.body(0))).toBe('first');
      expect(await reply(server, s, s.body(0))).toBe('first'); // the step retried
      expect(await reply(server, s, s.body(1))).toBe('second');
      expect(await reply(server, s, s.body(1))).toBe('second');
      expect(await reply(server, s, s.body(0))).toBe('first'); // an old position keeps its reply
      expect(await reply(server, s, s.body(1, 1))).toBe('third'); // a new turn after the same steps
      expect(server.served).toBe(3);
      const exhausted = await ask(server, s, s.body(2, 1));
      expect(exhausted.status).toBe(500);
      expect(await exhausted.text()).toContain('script_exhausted');
      expect(await reply(server, s, s.body(1, 1))).toBe('third');
    },
  );

  it.each(surfaces)(
    "$name: threads — a request whose first user message holds a thread's match is served from that thread, positions counted apart",
    async (s) => {
      const server = await serve({
        replies: [{ text: 'parent 1' }, { text: 'parent 2' }],
        threads: [{ match: 'Objective: child', replies: [{ text: 'child 1' }, { text: 'child 2' }] }],
      });
      /** The same body with its first user message reading `text` (the surfaces' bodies say "hi"). */
      const as = (body: Record<string, unknown>, text: string) =>
        JSON.parse(JSON.stringify(body).replace('"hi"', JSON.stringify(text))) as Record<string, unknown>;
      expect(await reply(server, s, s.body(0))).toBe('parent 1');
      expect(await reply(server, s, as(s.body(0), 'do it. Objective: child work'))).toBe('child 1');
      expect(await reply(server, s, as(s.body(1), 'do it. Objective: child work'))).toBe('child 2');
      expect(await reply(server, s, s.body(1))).toBe('parent 2');
      expect(await reply(server, s, as(s.body(0), 'do it. Objective: child work'))).toBe('child 1'); // a retry
      const exhausted = await ask(server, s, as(s.body(2), 'Objective: child'));
      expect(exhausted.status).toBe(500);
      expect(await exhausted.text()).toContain('in thread');
    },
  );

  it("a faulted request keeps its position's reply: the retry gets it, the next step gets the next one", async () => {
    const s = surfaces[0]!;
    const server = await serve({ replies: [{ text: 'after a 503', fault: { status: 503 } }, { text: 'next step' }] });
    expect((await ask(server, s, s.body(0))).status).toBe(503);
    expect(await reply(server, s, s.body(0))).toBe('after a 503');
    expect(await reply(server, s, s.body(1))).toBe('next step');
  });

  it('replyBy: "arrival" keeps the old order: each request takes the next reply served in full', async () => {
    const s = surfaces[0]!;
    const server = await serve({ replyBy: 'arrival', ...script });
    expect(await reply(server, s, s.body(0))).toBe('first');
    expect(await reply(server, s, s.body(0))).toBe('second');
  });
});
