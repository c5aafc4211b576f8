import { describe, expect, it } from 'vitest';
import { parsePatch, PatchSyntaxError } from '../../../activities/tools/apply-patch/index.js';
import { applyPatchDeclaration, patchFilePaths } from '../../../core/tools/apply-patch.js';

function syntaxError(text: string): PatchSyntaxError {
  try {
    parsePatch(text);
  } catch (err) {
    expect(err).toBeInstanceOf(PatchSyntaxError);
    return err as PatchSyntaxError;
  }
  throw new Error('expected a PatchSyntaxError');
}

describe('parsePatch (FT3 patch format)', () => {
  it('parses add, delete, update with move, headers, context and End of File', () => {
    const p = parsePatch(
      [
        '*** Begin Patch',
        '*** Add File: src/new.ts',
        '+export const a = 1;',
        '+',
        '*** Delete File: old.txt',
        '*** Update File: src/a.ts',
        '*** Move to: src/b.ts',
        '@@ function f() {',
        ' keep',
        '-drop',
        '+add',
        '@@',
        '-last',
        '+LAST',
        '*** End of File',
        '*** End Patch',
      ].join('\n'),
    );
    expect(p.operations).toEqual([
      { kind: 'add', path: 'src/new.ts', lines: ['export const a = 1;', ''], line: 2 },
      { kind: 'delete', path: 'old.txt', line: 5 },
      {
        kind: 'update',
        path: 'src/a.ts',
        moveTo: 'src/b.ts',
        line: 6,
        chunks: [
          {
            header: 'function f() {',
            oldLines: ['keep', 'drop'],
            newLines: ['keep', 'add'],
            contextOf: [0, -1],
            endOfFile: false,
            line: 8,
          },
          { oldLines: ['last'], newLines: ['LAST'], contextOf: [-1], endOfFile: true, line: 12 },
        ],
      },
    ]);
  });

  it('tolerates padded markers, CRLF, surrounding blank lines, a heredoc wrapper and unified @@ headers', () => {
    const padded = parsePatch(
      '\n\n *** Begin Patch \r\n  *** Update File: a.txt\r\n@@ -1,2 +1,2 @@ fn x\r\n-a\r\n+b\r\n *** End Patch\n\n',
    );
    expect(padded.operations[0]).toMatchObject({
      kind: 'update',
      path: 'a.txt',
      chunks: [{ header: 'fn x', oldLines: ['a'] }],
    });
    const heredoc = parsePatch("<<'EOF'\n*** Begin Patch\n*** Delete File: x\n*** End Patch\nEOF\n");
    expect(heredoc.operations).toEqual([{ kind: 'delete', path: 'x', line: 3 }]);
    const noHeader = parsePatch('*** Begin Patch\n*** Update File: f\n import a\n+import b\n*** End Patch');
    expect(noHeader.operations[0]).toMatchObject({
      chunks: [{ oldLines: ['import a'], newLines: ['import a', 'import b'] }],
    });
    const unifiedNoText = parsePatch('*** Begin Patch\n*** Update File: f\n@@ -3 +3 @@\n-a\n+b\n*** End Patch');
    expect((unifiedNoText.operations[0] as { chunks: Array<{ header?: string }> }).chunks[0]!.header).toBeUndefined();
  });

  it('an Update with a Move and no hunks is a pure rename', () => {
    const p = parsePatch('*** Begin Patch\n*** Update File: a\n*** Move to: b\n*** End Patch');
    expect(p.operations).toEqual([{ kind: 'update', path: 'a', moveTo: 'b', chunks: [], line: 2 }]);
  });

  it('syntax errors are invalid_arguments naming the line and what was expected', () => {
    const cases: Array<[string, number, RegExp]> = [
      ['', 1, /Begin Patch/],
      ['\n\nhello\n*** End Patch', 3, /'\*\*\* Begin Patch' as the first line/],
      ['*** Begin Patch\n*** Add File: a\n+x', 3, /'\*\*\* End Patch' as the last line/],
      ['*** Begin Patch\n*** End Patch', 2, /at least one/],
      ['*** Begin Patch\n*** Add File: a\n+x\n*** Frobnicate File: foo\n*** End Patch', 4, /Add File: <path>/],
      ['*** Begin Patch\n*** Update File: foo\n*** End Patch', 2, /no hunks/],
      ['*** Begin Patch\n*** Update File: foo\n@@\n*** End Patch', 4, /hunk line starting with/],
      [
        '*** Begin Patch\n*** Update File: foo\n@@\n-a\n+b\nnot a hunk line\n*** End Patch',
        6,
        /'@@' or '@@ <context line>'/,
      ],
      ['*** Begin Patch\n*** Update File: foo\n@@ x\n?bad\n*** End Patch', 4, /hunk line starting with/],
      ['*** Begin Patch\n*** Add File:   \n*** End Patch', 2, /path/],
      [
        '*** Begin Patch\n*** Delete File: a\n*** End Patch\n*** Delete File: b\n*** End Patch',
        3,
        /only as the last line/,
      ],
    ];
    for (const [text, line, expected] of cases) {
      const e = syntaxError(text);
      expect(e.code).toBe('invalid_arguments');
      expect(e.line, text).toBe(line);
      expect(e.message, text).toMatch(expected);
      expect(e.message).toMatch(new RegExp(`^Invalid patch at line ${line}: .*; expected .+\\.$`, 's'));
      expect(e.details).toMatchObject({ line, expected: e.expected });
    }
  });
});

describe('apply_patch declaration (TD1)', () => {
  it('is SideEffecting, replay Never, Exclusive; validates { patch }', () => {
    expect(applyPatchDeclaration).toMatchObject({
      name: 'apply_patch',
      effect: 'SideEffecting',
      replay: 'Never',
      concurrency: 'Exclusive',
    });
    expect(applyPatchDeclaration.args.safeParse({ patch: 'x' }).success).toBe(true);
    expect(applyPatchDeclaration.args.safeParse({ patch: '' }).success).toBe(false);
    expect(applyPatchDeclaration.args.safeParse({ patch: 'x', extra: 1 }).success).toBe(false);
  });

  it('summarizes as the first path plus a count', () => {
    const text =
      '*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: src/z.ts\n@@\n-a\n+b\n  *** Add File: src/b.ts\n+x\n*** Delete File: c.txt\n*** Update File: src/a.ts\n@@\n-b\n+c\n*** End Patch';
    expect(patchFilePaths(text)).toEqual(['src/a.ts', 'src/b.ts', 'c.txt']);
    expect(applyPatchDeclaration.summarize({ patch: text })).toBe('apply_patch: src/a.ts (+2 more)');
    expect(applyPatchDeclaration.summarize({ patch: '*** Begin Patch\n*** Add File: one.md\n+x\n*** End Patch' })).toBe(
      'apply_patch: one.md',
    );
    expect(applyPatchDeclaration.summarize({ patch: 'garbage' })).toBe('apply_patch: (no files)');
    const long = applyPatchDeclaration.summarize({
      patch: `*** Begin Patch\n*** Add File: ${'d/'.repeat(100)}f\n+x\n*** Delete File: g\n*** End Patch`,
    });
    expect(long.length).toBeLessThanOrEqual(120);
    expect(long.endsWith('… (+1 more)')).toBe(true);
  });

  it('affectedPaths lists every named file, move targets, and the temp-file pattern of every file it may write', () => {
    const text =
      '*** Begin Patch\n*** Update File: src/a.ts\n*** Move to: src/z.ts\n@@\n-a\n+b\n  *** Add File: src/b.ts\n+x\n*** Delete File: c.txt\n*** Update File: d.txt\n@@\n-b\n+c\n*** End Patch';
    expect(applyPatchDeclaration.affectedPaths!({ patch: text })).toEqual([
      'src/a.ts',
      'src/b.ts',
      'c.txt',
      'd.txt',
      'src/z.ts',
      'src/.z.ts.*.zuno-tmp',
      'src/.b.ts.*.zuno-tmp',
      '.d.txt.*.zuno-tmp',
    ]);
    const longName = 'n'.repeat(101);
    expect(
      applyPatchDeclaration.affectedPaths!({
        patch: `*** Begin Patch\n*** Add File: x/${longName}\n+x\n*** End Patch`,
      }),
    ).toEqual([`x/${longName}`, 'x/.file.*.zuno-tmp']);
  });
});
