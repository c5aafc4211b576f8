import { describe, expect, it } from 'vitest';
import { stampLines } from '../../client/log-timestamps.js';

describe("the host worker service's log lines carry their time (stampLines)", () => {
  const T = '2026-12-03T21:20:04.512Z';
  it('stamps each line that starts in the text, whole lines and pieces alike', () => {
    expect(stampLines('a\nb\n', T, true)).toEqual({ text: `${T} a\n${T} b\n`, atLineStart: true });
    // A line written in two pieces is stamped once, where it starts.
    const first = stampLines('half ', T, true);
    expect(first).toEqual({ text: `${T} half `, atLineStart: false });
    expect(stampLines('done\nnext', T, first.atLineStart)).toEqual({ text: `done\n${T} next`, atLineStart: false });
    expect(stampLines('', T, false)).toEqual({ text: '', atLineStart: false });
  });
});
