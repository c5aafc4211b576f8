/**
 * Declaration of the `report_write` tool (FT5, TD1). Deterministic: zod +
 * pure code only, imported by the session workflow to validate arguments
 * (TD8): an unsafe name or an oversized body is a blocked `invalid_arguments`
 * call before anything runs. The implementation is
 * activities/tools/report-write.ts.
 */
import { z } from 'zod';
import { utf8ByteLength } from '../utf8.js';

export { utf8ByteLength };
import type { ToolDeclaration } from './types.js';
import { summaryLine } from './summary.js';

/** Largest report body, in UTF-8 bytes (1 MiB, FT5). */
export const REPORT_MAX_BYTES = 1024 * 1024;
/** Longest report name, in UTF-8 bytes (the published file name adds the digests, staying under 255). */
export const REPORT_NAME_MAX_BYTES = 128;

// eslint-disable-next-line no-control-regex
const CONTROL = /[\u0000-\u001f\u007f-\u009f]/;
/** Zero-width and bidirectional formatting characters: they make a name display as something else. */
const INVISIBLE = /[\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]/;
/** Characters Windows does not allow in file names. */
const WINDOWS_RESERVED = /[<>:"|?*]/;
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/;

/**
 * Why `name` is not a safe report file name, or undefined when it is (FT5:
 * directory paths and names unsafe on a supported platform are rejected;
 * nothing is silently rewritten).
 *
 * A name must be a plain file name: not empty, at most
 * {@link REPORT_NAME_MAX_BYTES} UTF-8 bytes, without `/` or `\`, without
 * `..`, not `.`, without control, zero-width or bidi characters, without the
 * Windows-reserved `< > : " | ? *`, without lone surrogates, and without
 * leading or trailing whitespace or a trailing dot.
 */
export function reportNameProblem(name: string): string | undefined {
  if (name.length === 0) return 'the report name is empty; give a plain file name such as "audit.md"';
  const bytes = utf8ByteLength(name);
  if (bytes > REPORT_NAME_MAX_BYTES)
    return `the report name is ${bytes} UTF-8 bytes long; at most ${REPORT_NAME_MAX_BYTES} are allowed`;
  if (name.includes('/') || name.includes('\\'))
    return 'the report name must be a plain file name such as "audit.md", not a path (no "/" or "\\"); the host picks the directory';
  if (name.includes('..') || name === '.') return 'the report name must not be "." or contain ".."';
  if (CONTROL.test(name)) return 'the report name contains a control character (e.g. a newline or a NUL byte)';
  if (INVISIBLE.test(name)) return 'the report name contains an invisible or text-direction control character';
  if (LONE_SURROGATE.test(name)) return 'the report name contains invalid Unicode (a lone surrogate)';
  if (WINDOWS_RESERVED.test(name))
    return 'the report name contains one of < > : " | ? *, which are not allowed in file names';
  if (/^\s|\s$/.test(name)) return 'the report name must not start or end with whitespace';
  if (name.endsWith('.')) return 'the report name must not end with a dot';
  return undefined;
}

/** Arguments of `report_write`. */
export const reportWriteArgs = z.strictObject({
  name: z
    .string()
    .superRefine((v, ctx) => {
      const problem = reportNameProblem(v);
      if (problem) ctx.addIssue({ code: 'custom', message: problem });
    })
    .describe(
      'Plain file name of the report, such as "audit.md" (no directories). The host adds session and call digests to it and picks the directory.',
    ),
  content: z
    .string()
    .superRefine((v, ctx) => {
      if (v.length <= REPORT_MAX_BYTES / 3) return; // cannot exceed the cap
      const bytes = utf8ByteLength(v);
      if (bytes > REPORT_MAX_BYTES)
        ctx.addIssue({
          code: 'custom',
          message: `the report is ${bytes} UTF-8 bytes; at most ${REPORT_MAX_BYTES} (1 MiB) are allowed. Shorten it or split it into several reports.`,
        });
    })
    .describe(`The complete report text (UTF-8), at most ${REPORT_MAX_BYTES} bytes (1 MiB).`),
});

/** Parsed arguments of `report_write`. */
export type ReportWriteArgs = z.infer<typeof reportWriteArgs>;

/**
 * The receipt of one published report (FT5 "reportArtifact receipt"), stored
 * in the result's `data.reportArtifact` and persisted with the call.
 */
export interface ReportArtifact {
  /** Workspace-relative path of the published file, `/`-separated (`.zuno/reports/<file>`). */
  path: string;
  /** Absolute path of the published file (under the real, symlink-resolved workspace root). */
  absolutePath: string;
  /** The name the call asked for. */
  name: string;
  /** Size of the file in bytes (= UTF-8 bytes of the content). */
  bytes: number;
  /** SHA-256 of the file bytes, lowercase hex. */
  sha256: string;
  /** Digest of the session id in the file name (12 hex). */
  sessionDigest: string;
  /** Digest of the call id in the file name (12 hex). */
  callDigest: string;
}

/**
 * `report_write` declaration: SideEffecting (the seed's table: 有副作用;
 * strict mode treats publishing as a side effect), replay Never, Exclusive
 * (TD5: writes stay Exclusive). Summary: `report_write: audit.md`.
 */
export const reportWriteDeclaration: ToolDeclaration<ReportWriteArgs> = {
  name: 'report_write',
  effect: 'SideEffecting',
  replay: 'Never',
  concurrency: 'Exclusive',
  args: reportWriteArgs,
  summarize(args) {
    return summaryLine(`report_write: ${args.name}`);
  },
};
