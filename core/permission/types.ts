/**
 * Types of the permission gate (PM1, TD2, TD7, TD8): the policy read from
 * `zuno.json` `permission`, the subject of one call, the "approve for this
 * session" grants and the decision. Decisions where the seeds are silent
 * (PM10): docs/permissions.md. Deterministic: the session workflow imports it.
 */
import type { ToolEffect } from '../tools/types.js';

/** What a rule or a decision says about a call. */
export type PermissionAction = 'allow' | 'ask' | 'deny';

/**
 * `standard`: the rules decide, no matching rule allows (a tool Zuno does not
 * declare asks). `strict`: every SideEffecting or Delegating call asks unless
 * a rule denies (TD2). `allow_all`: nothing asks; a deny still denies.
 */
export type PermissionMode = 'standard' | 'strict' | 'allow_all';

/**
 * Why a shell call's programs (or a write target) cannot all be named
 * statically (docs/permissions.md "Fail closed"): each occurrence asks when a
 * rule could have spoken for it.
 * - `program`: the program word is built at run time (`$(echo rm) x`, `$a x`,
 *   a glob or brace word, a wrapper's non-literal option, `xargs $X`);
 * - `eval`: `eval`/`trap` of non-literal text; `source`: `source`/`.` of a
 *   file chosen at run time or of the standard input;
 * - `interpreter_code`: `sh|bash|…|python|node|perl|ruby|php|lua` given code
 *   (`-c`/`-e`/…) that is not literal, or nested deeper than the parser follows;
 * - `interpreter_input`: an interpreter that reads its program from its
 *   standard input (`… | sh`, `bash <<< 'rm x'`, `xargs sh`);
 * - `find`: `find -delete`; `parallel`: GNU parallel with no command (it reads
 *   commands from its input); `env_split`: `env -S`/`--split-string`;
 *   `coproc`; `function`: a function definition; `alias`: an alias definition;
 * - `written_program`: the command runs a file it writes itself (`cp /bin/rm d;
 *   ./d x`, `echo 'rm x' > s.sh; sh s.sh`);
 * - `unparsed`: text that does not parse (or a parser that cannot load);
 * - `write_target`: a file the command writes whose path is not known
 *   statically (`> "$F"`, `tee $OUT`, `xargs rm`, a relative path after `cd`);
 * - `link_write`: the command makes a link (`ln`, `link`, `cp -s/-l/-r/-a/-P`,
 *   `mv`) and writes other files too, which the new link may send anywhere
 *   (`ln -s secrets d && echo x > d/k`).
 *   `write_target` and `link_write` are decided with the `edit` rules, all
 *   other kinds with the shell rules.
 */
export type DynamicKind =
  | 'program'
  | 'eval'
  | 'source'
  | 'interpreter_code'
  | 'interpreter_input'
  | 'find'
  | 'parallel'
  | 'env_split'
  | 'coproc'
  | 'function'
  | 'alias'
  | 'written_program'
  | 'unparsed'
  | 'write_target'
  | 'link_write';

/** One occurrence of a {@link DynamicKind} in a shell call: `text` is the simple command (or redirection) as spelled. */
export interface DynamicPart {
  kind: DynamicKind;
  text: string;
}

/**
 * What a call touches, computed by the modelStep activity (it has the
 * filesystem and the shell parser: activities/permission/subject.ts
 * `callSubject`) and carried to the workflow.
 *
 * - `paths`: workspace-relative normalized real paths (`..` resolved,
 *   symlinks resolved, `/`-separated, `.` for the root); a path outside the
 *   workspace is its absolute real path.
 * - `commands`: each simple command of a shell call, its words unquoted and
 *   joined by single spaces (`bash -c '…'`, `sh -c`, `eval` and `$(…)` recursed
 *   into; pipelines, lists, subshells split into their simple commands; a word
 *   the shell would expand keeps its source text). `unwrapped`: for a command
 *   behind leading assignments or a wrapper (`env`, `sudo`, `timeout`, …), the
 *   command it runs (`sudo rm -rf /` → `rm -rf /`); matched like `commands`.
 *   `writes`: the files the command writes — redirection targets, `tee`,
 *   `dd of=`, `cp`/`mv`/`install`/`ln` destinations, `mv` sources, `touch`,
 *   `truncate`, `rm`, `rmdir`, `unlink`, `shred`, `mkdir`, `sed -i` files,
 *   `find -fprint` — normalized like `paths` (relative to the call's
 *   `workdir`); an entry ending in `/**` (`**` for the root) is a directory
 *   and everything under it (`rm -r`, `mv`, `cp -r`). Decided by the `edit`
 *   rules. `dynamic`: what cannot be named statically ({@link DynamicKind}).
 *   Subjects computed before issue 26 have neither.
 * - `url`: the URL a web tool reads, as `scheme://host[:port]/path` (lower-cased
 *   scheme and host, no default port, no credentials, query or fragment;
 *   core/permission/url.ts `urlSubjectText`), issue 31.
 * - `none`: a call with nothing to match patterns on (matched as the empty text).
 */
export type CallSubject =
  | { kind: 'paths'; paths: string[] }
  | { kind: 'commands'; commands: string[]; unwrapped?: string[]; writes?: string[]; dynamic?: DynamicPart[] }
  | { kind: 'url'; url: string }
  | { kind: 'none' };

/**
 * One rule, in config order. `tool`: a tool name, a group key (`edit` = write
 * + apply_patch, see rules.ts `PERMISSION_GROUPS`) or `*` (every tool).
 * `pattern`: a glob over the subject text (rules.ts `globMatch`); absent: the
 * whole tool.
 */
export interface PermissionRule {
  tool: string;
  pattern?: string;
  action: PermissionAction;
}

/** `zuno.json` `permission`, parsed (client/permission-config.ts). Rules in config order; the last match wins. */
export interface PermissionPolicy {
  mode: PermissionMode;
  rules: PermissionRule[];
}

/**
 * "Approve for this session": turns a later `ask` of the same tool (the exact
 * name, never a group) into `allow` when `pattern` (a glob, like rule
 * patterns) matches. Never overrides a deny.
 *
 * - `scope: 'call'` (issue 26 item 3; every grant a person gives since): the
 *   pattern is matched against the call's whole text ({@link PermissionCall.text}:
 *   the full command as sent, or the paths) — the exact text that was shown,
 *   or a pattern the person typed — and admits the whole call.
 * - absent (grants stored before, kept in running workflows and projection
 *   rows): the pattern is matched against each subject text (one simple
 *   command, one path), as it was.
 */
export interface SessionGrant {
  tool: string;
  pattern: string;
  scope?: 'call';
}

/** The call {@link evaluatePermission} decides on. */
export interface PermissionCall {
  /** The tool name as the model sent it. */
  tool: string;
  /** The call's TD1 effect (`callEffect` in effect.ts); ignored for a tool Zuno does not declare (SideEffecting). */
  effect: ToolEffect;
  /** true for an MCP tool whose effect its server's annotations declared (MC9): `effect` is taken as declared. */
  declared?: boolean;
  subject: CallSubject;
  /**
   * The call's whole text as a person is shown it (shown.ts `shownSubject`):
   * what grants of scope `call` match. Absent: no such grant matches.
   */
  text?: string;
}

/** What the gate decided for one call. */
export interface PermissionDecision {
  action: PermissionAction;
  /**
   * Plain words for people and the model: which rule or mode decided, e.g.
   * `rule shell "rm -rf*" → deny`, `strict mode: shell changes things`.
   */
  reason: string;
  /**
   * The subject text shown in an approval prompt: the subjects that decided
   * (for an ask: those that ask), joined by `; ` — e.g. `rm -rf build` or
   * `src/a.ts`; the tool name for a call without a subject.
   */
  subjectText: string;
  /**
   * For action `ask`: the pattern an "approve for this session" grant stores
   * for the first asking subject — its exact text with `*`, `?` and `\`
   * escaped, so the grant covers that subject only. Equal to `grantPatterns[0]`.
   */
  grantPattern?: string;
  /**
   * For action `ask`: one exact pattern per asking subject (a pipeline can ask
   * for several commands). Store one {@link SessionGrant} `{ tool, pattern }`
   * per entry; together they stop asking for this call's subjects.
   */
  grantPatterns?: string[];
}
