import { describe, expect, it } from 'vitest';
import { markdownLiteral } from '../../core/ui-text.js';
import { statusLine } from '../../workflows/status-line.js';

describe('text for the Temporal UI (rendered as Markdown there)', () => {
  it('prompts and commands read literally: no math, emphasis, links or HTML', () => {
    expect(markdownLiteral('for i in $(seq 1 5); do echo $i; done')).toBe('for i in \\$(seq 1 5); do echo \\$i; done');
    expect(markdownLiteral('**bold** <img src=http://x/y onerror=alert(1)> [a](http://x)')).toBe(
      '\\*\\*bold\\*\\* &lt;img src=http://x/y onerror=alert(1)&gt; \\[a\\](http://x)',
    );
    expect(markdownLiteral('_emph_ but tool_call and bg_0_0_0 stay')).toBe(
      '\\_emph\\_ but tool_call and bg_0_0_0 stay',
    );
    expect(markdownLiteral('plain words, (parens) and a-b.')).toBe('plain words, (parens) and a-b.');
  });

  it('a compaction says which recovery of the turn it is, or that a person asked (issue 28 item 6)', () => {
    const at = Date.UTC(2026, 11, 1, 6, 41, 5);
    expect(statusLine.compacting(2, 2, 5, at)).toBe('turn 3 · compacting (2 of 5) · since 06:41:05 UTC');
    expect(statusLine.compacting(2, 0, 5, at)).toBe('turn 3 · compacting (asked by a person) · since 06:41:05 UTC');
  });

  it('the status line escapes what came from the model', () => {
    const at = Date.UTC(2026, 11, 1, 6, 41, 5);
    expect(statusLine.tools(0, [{ name: 'shell', summary: 'shell: echo $HOME `id`' }], at)).toBe(
      'turn 1 · shell: echo \\$HOME \\`id\\` · since 06:41:05 UTC',
    );
  });
});
