/**
 * The error-code catalogue: every stable code Zuno puts in a typed error —
 * `ZunoError.code`, a tool result's `errorCode` (TD8), an ApplicationFailure
 * type its workflows and activities raise — with its one-line meaning. The
 * codes are user-visible (`zuno … --json`, the model's tool results, the
 * projection's rows), so a code is never renamed. Beside the event
 * catalogue (core/events.ts) and shaped like it. Deterministic: plain data.
 *
 * Adding a code: add it here with its meaning; `ErrorCode` follows, and
 * every typed site then accepts it. Nothing else may invent a code.
 */

/** Every error code, with what it means (one line, for people). The only place a code is spelled first. */
export const ERROR_CODES = {
  aborted: 'The caller aborted the operation (its AbortSignal fired), e.g. a follow stopped.',
  agent_invalid: 'An agent name is unknown or names a subagent-only role where a primary agent is required.',
  api_key_missing: 'The provider API key variable the config names is unset or empty (classified as provider_auth).',
  approval_already_decided: 'The approval has already been decided; a second decision is refused.',
  approval_ambiguous: 'Several sessions have a pending approval with this id; add --session.',
  approval_command_conflict: 'The same decision command id was reused with a different decision.',
  approval_invalid: 'A decision request is malformed (missing ids, unknown decision, bad pattern or message).',
  approval_not_found: 'No such approval (or no pending one) in the session or home.',
  approval_stale_revision: 'The decision names an approval revision other than the current one.',
  approval_subject_mismatch: 'The decision was made on another subject text than the pending call (digest differs).',
  artifact_path_refused: 'A delegation artifact path lies outside the places a child may write reports.',
  audit_refused: 'goal_update complete was refused: some criteria are not settled yet.',
  background_not_routed:
    'shell background: true reached a worker that does not run background commands for this session.',
  background_unavailable: 'Background commands are not available for this session here (no task store).',
  binary_file: 'The file is binary; a text tool refuses it.',
  blocked_needs_reason: 'A Todo marked blocked does not say by what (blockedBy).',
  body_too_large: 'An HTTP request body to zuno serve is larger than its limit (413); nothing was done.',
  budget_exhausted: 'A Goal budget is used up; the request needs a raised budget first.',
  cancelled: 'The call or run was cancelled before it finished (nothing more runs).',
  cannot_access: 'A path component cannot be accessed (permission or I/O error while resolving).',
  cannot_read: 'A file or directory could not be read (the errno is in the message/data).',
  client_ids_exhausted: 'The session refuses new client message ids: it holds as many as it can remember.',
  compaction_failed:
    'A compaction published no summary (nothing left to compact, or the reply was empty, cut, too long or late: CP12); the earlier summary stays valid.',
  compaction_limit:
    "A turn's request still did not fit the model's context after 5 compactions (CP6); the turn fails closed, a Goal does not retry it.",
  config_invalid: 'A Zuno config file or value is invalid (names the file and each bad key).',
  config_missing: 'An explicitly given config path cannot be read.',
  content_filtered:
    'The provider refused the request by its content filter with no text and no tool call (PR3, terminal).',
  ContextMismatch: "apply_patch: a hunk's context lines do not match the file (not found, ambiguous or overlapping).",
  corrupt_state: 'Stored state no longer reads valid (a projection row missing or unparsable); not retryable.',
  council_closed: 'The Council has ended; there is nothing left to cancel.',
  council_diff_invalid: "The Council's git diff range is not a range or git failed on it.",
  council_failed: 'A Council run failed without a more specific code.',
  council_not_found: 'No Council run with this id in the projection.',
  council_prepare_failed: 'Preparing a Council (its diff and seats) failed without a typed code.',
  council_quorum_missed: "Fewer Council seats returned a valid report than the preset's quorum.",
  council_synthesis_empty: "The Council's synthesis request answered with no text.",
  council_synthesis_failed: "The Council's synthesis step failed.",
  cursor_out_of_range: 'A background output cursor is beyond the bytes written so far.',
  deployment_conflict:
    "An environment variable says another value than the home's deployment file (names the key, both values and where each came from); nothing started.",
  deployment_unrecorded:
    "The deployment's projection could not be recorded in or read from the Temporal namespace's data (the server refused UpdateNamespace or DescribeNamespace).",
  dependency_cycle: 'Todo dependencies form a cycle.',
  dependency_unfinished: 'A Todo was started or finished before one it depends on is done.',
  deployment_unavailable:
    'The Temporal server refused a Worker Deployment call (a server without Worker Deployments, or no permission); docs/versioning.md.',
  dev_server_failed: 'The embedded Temporal dev server failed to start or answer.',
  dev_server_port_busy: "Another process (not this home's dev server) holds the dev server port.",
  diff_empty: 'The given git diff range has no changes; nothing to review.',
  diff_invalid: 'The diff range is not valid (not a git repository, or git refused it).',
  empty_batch: 'A todo_update batch has no changes.',
  evidence_ambiguous: 'A cited evidence id matches several receipts; it is never resolved to one of them.',
  evidence_not_from_check: "The cited receipt is not a run of the criterion's own check command (or ran elsewhere).",
  evidence_stale: 'The cited receipt is older than the latest change it should prove (GL32 freshness).',
  goal_blocked: 'The Goal is blocked; the request cannot proceed until what blocks it is fixed.',
  goal_closed: 'The Goal has ended (completed or cancelled) and takes no more changes.',
  goal_control_refused: 'The Goal workflow refused a control request without a typed code.',
  goal_ended: "The Goal's workflow ended without the awaited result.",
  goal_not_active: 'The Goal is not advancing (e.g. already paused), so the request does not apply.',
  goal_not_found: 'No Goal with this id.',
  goal_not_paused: 'The Goal is not paused; there is nothing to resume.',
  goal_unreachable: "A goal tool could not reach the Goal's workflow.",
  home_lock_timeout: "Another command held Zuno's home lock for too long.",
  host_claimed:
    'The host id is bound to another machine or Zuno home (names both); take it over with zuno worker --take-over-host <id> only if the host moved here.',
  IdenticalReplay: 'apply_patch: the patch was already applied (the file holds exactly its result).',
  inbox_full: "The session's input inbox is full; the input was not admitted.",
  input_invalid: 'A request or input to a workflow is malformed (names the field).',
  input_rejected: 'The session refused an input (or standard input is unusable as the prompt).',
  internal_error:
    "An unexpected failure inside Zuno's own engine (e.g. the background engine); the outcome is uncertain.",
  interrupted: 'The turn or command was interrupted before it finished.',
  invalid_arguments: "A tool call's arguments do not match its schema (or a value is invalid).",
  invalid_path: 'A path is malformed (empty, NUL, or not a valid workspace path).',
  invalid_task_id: 'A background task id is malformed.',
  job_not_found: 'No background job with this id in the session.',
  jobs_unavailable: 'The session has no job store on this worker.',
  local_elsewhere:
    "A local activity reached a worker that does not run the session's task queue (an expected refusal; the workflow routes it elsewhere).",
  model_invalid: 'A model reference is malformed (expected provider/model).',
  model_missing: 'The command was given neither a model nor a script.',
  model_step_failed: 'A model step failed for good without a typed code (its message says why).',
  mcp_call_failed:
    'An MCP server answered a tool call with an error, or refused the request (its own message follows).',
  mcp_disconnected:
    'The MCP server was not connected when the call was made (its process exited or its HTTP endpoint closed); nothing was sent. The next call reconnects.',
  mcp_lost_outcome:
    'An MCP call was sent but its outcome never came back (the request timed out or the connection dropped mid-call): recorded uncertain, never re-run (MC9, GL9).',
  mcp_server_failed:
    'An MCP server could not be started or connected (its own error follows); its tools are not offered.',
  mcp_tool_unavailable:
    'The MCP tool is not in its server’s current catalog (removed, or the server is not connected).',
  model_step_timeout: 'A model step ran past its start-to-close or heartbeat timeout; a Goal retries it.',
  network_connect_failed:
    'A web request could not connect to its validated address (refused, reset, TLS failure); the phase and elapsed time are named.',
  network_http_status:
    'A web request was answered with an HTTP error status (4xx or 5xx); the result shows the status and the page it sent.',
  network_proxy_failed:
    'The proxy that HTTP_PROXY, HTTPS_PROXY or ALL_PROXY names for the URL could not be reached or refused the tunnel to the validated address; the request is never sent directly instead.',
  network_redirect_refused: 'A web request was redirected more than 5 times, or to a URL that is not http(s).',
  network_refused:
    'A web request was refused before any byte was sent: the URL names, or its name resolves to, an address that is not public (loopback, private, link-local, …) and not allowlisted.',
  network_resolve_failed: 'The host name of a web request could not be resolved.',
  network_response_too_large: 'A web response was larger than its byte cap; reading stopped at the cap.',
  network_timeout: 'A web request took longer than its total time limit, or its body stalled past the idle limit.',
  network_url_invalid: 'A web request URL is malformed, not http(s), or carries credentials.',
  no_goal: 'A goal tool was called in a session that has no Goal.',
  no_plan: 'plan_update needs a Plan, and there is none yet.',
  no_question: 'The Goal is not waiting for an answer.',
  no_worker: 'No worker took the request within the wait; start one.',
  not_a_directory: 'A path that must be a directory is not one.',
  not_a_file: 'A path that must be a regular file is not one.',
  not_an_activity: 'A delegating tool (task, council_run) was run as an activity; the workflow runs it.',
  not_found: 'The named file, path, workflow or item does not exist.',
  not_started: 'A background command did not start (nothing ran).',
  not_utf8: 'The file is not valid UTF-8 text.',
  nothing_to_pop: 'plan_update pop at the root Plan: there is no parent level.',
  offset_out_of_range: 'A read offset is beyond the end of the file.',
  one_step_plan: 'A Plan must have more than one step.',
  options_conflict: 'Two command-line options that exclude each other were both given.',
  output_capture_failed: "The shell command's output could not be captured; nothing reliable to report.",
  output_too_large: "A tool's output exceeded its hard cap (e.g. rg over 64 MiB).",
  path_outside_workspace: 'A path resolves outside the workspace.',
  plan_corrupt: 'The stored Plan state does not read valid.',
  plan_exists: 'plan_update create when a Plan already exists.',
  port_unavailable: 'A listening port cannot be bound.',
  preset_frozen: 'The Council preset fixes this setting; a flag tried to change it.',
  preset_unknown: 'No Council preset with this name.',
  projection_unavailable: 'The projection database or its migrations are not available.',
  prompt_not_found:
    'zuno session show --prompt: the session has no stored prompt receipt for that request (sent before issue 32, or no such step).',
  provider_auth: 'The provider refused the credentials (401/403) or the key is missing; the session pauses (PR3).',
  provider_bad_request: 'The provider refused the request as invalid (400/404/413/422); not retried.',
  provider_config: 'The provider setup is broken (unknown provider, bad base URL…); the turn blocks.',
  provider_connection: 'Could not connect to the provider (refused, reset, DNS); retryable.',
  provider_context_limit:
    'The provider said the request exceeds the context window (used/limit kept); compaction recovers (CP8).',
  provider_protocol: 'The provider answered in a shape Zuno cannot parse; not retried.',
  provider_rate_limited: 'The provider rate-limited the request (429); retried after Retry-After.',
  provider_retry_deadline: "A model step's retry window (PR1) ran out; carries the last failure.",
  provider_timeout: 'The provider did not answer in time (headers or next chunk, or 408); retryable.',
  provider_unavailable: 'The provider failed server-side (5xx/409, or an error inside the stream); retryable.',
  provider_unknown: 'The model reference names an unknown provider.',
  question_already_answered: 'The question (or item) has already been answered.',
  question_ambiguous: 'Several sessions have a pending question with this id; add --session.',
  question_command_conflict: 'The same answer command id was reused with different content.',
  question_invalid: 'A question, answer or snooze request is malformed.',
  question_not_found: 'No such question (or no pending one).',
  question_session_ending: 'The session is ending; it takes no new question.',
  question_stale_revision: 'The answer names a question revision other than the current one.',
  question_unavailable: "The question could not be published (the session's question desk did not take it).",
  rate_limited:
    'zuno serve refused an HTTP request: the client sent more than its rate limit allows (429); retry after Retry-After.',
  ReadRequired: 'write/apply_patch: the existing file was not read in this session first.',
  replay_window_exceeded:
    "An SSE client resumed (Last-Event-ID) further back than zuno serve's replay window: reload the state, then follow the stream on.",
  report_exists: 'A report file with that name already exists; it is never overwritten.',
  request_invalid:
    'An HTTP request to zuno serve does not match its route (body, path or query schema, or no such route).',
  retries_exhausted: 'A Goal blocked: its session kept failing past the retry budget (docs/goals.md).',
  revision_required: 'plan_update needs expected_revision (call plan_get first).',
  rg_failed: 'ripgrep died by a signal or exited with an error.',
  rg_missing: 'ripgrep (rg) is not installed or not found.',
  rg_probe_failed: "Probing ripgrep's version failed unexpectedly.",
  rg_too_old: 'The installed ripgrep is older than the supported version (major < 14).',
  rule_file_unreadable: 'A local rule file could not be read (SE27); the turn blocks until it is fixed.',
  sandbox_unavailable: 'The shell sandbox the policy requires is not available on this host; nothing ran.',
  script_invalid: 'A --script file is invalid (names the file and key path).',
  search_attributes_failed: "The Temporal server refused to register Zuno's search attributes.",
  session_blocked: 'The session is blocked; fix what it names before it continues.',
  session_closed: 'The session has closed and takes no more input.',
  session_delegated: 'The session is a child session; it is driven by its parent.',
  session_elsewhere: 'The session belongs to another workspace or host.',
  session_failed: 'The session failed (its last turn ended with a failure).',
  session_gone: 'The session closed while the command waited on it.',
  session_id_invalid: 'A session id is empty or malformed (expected ses_…).',
  session_not_found: 'No session with this id (in this workspace).',
  session_not_paused: 'The session is not paused; there is nothing to resume.',
  session_not_running: "The session's workflow is not running.",
  session_not_started:
    'The session belongs to a Goal that waits on its release watch; the Goal starts it when the watch reports (issue 31).',
  session_paused: 'The session is paused (e.g. provider_auth); resume it first.',
  shell_error: 'A shell call failed without a more specific code.',
  stack_too_deep: 'Too many nested Plan levels; pop one first.',
  stagnant_tool_loop: 'A turn kept making the same tool calls without progress and was stopped.',
  stale_revision: 'The request names a revision other than the current one (Plan, Todo or Goal).',
  StaleRead: 'write/apply_patch: the file changed since this session read it.',
  symlink_ancestor: 'A report directory (.zuno or .zuno/reports) is a symlink.',
  symlink_in_path: 'A path goes through a symbolic link, which tools refuse.',
  task_blocked: "A delegated task's child session ended blocked.",
  task_cancelled: "A delegated task's child session was cancelled.",
  task_exists: 'A background task with this id already exists.',
  task_failed: "A delegated task's child session failed.",
  task_interrupted: "A delegated task's child session was interrupted.",
  task_paused: "A delegated task's child session paused.",
  task_storage_failed: "The background task's directory or files could not be created.",
  task_uncertain: "A delegated task's child session ended uncertain; inspect before re-running.",
  temporal_binary_missing: 'The temporal CLI binary for the embedded dev server is missing.',
  temporal_unreachable: 'The Temporal server did not answer; start it or point Zuno at one.',
  terminal_step: 'The Plan step is already in a final state.',
  terminal_todo: 'The Todo is already in a final state.',
  todo_corrupt: 'The stored Todo state does not read valid.',
  too_many_steps: 'More Plan steps than allowed per level.',
  too_many_symlinks: 'Resolving a path met too many symbolic links.',
  too_many_todos: 'More Todos than allowed.',
  tool_failed: 'A tool body threw unexpectedly; reported as an error result.',
  turn_step_limit: 'A turn reached its step limit before a final answer; a Goal continues it.',
  two_in_progress: 'Only one Todo may be in progress at a time.',
  unauthorized:
    'An HTTP request to zuno serve carried no valid token (Bearer, or Basic with the token as password); nothing was done.',
  uncertain: 'What happened cannot be settled (e.g. an effect may have run); inspect before retrying.',
  unknown_step: 'No such step in the current Plan level.',
  unknown_task: 'No background task with this id in the session.',
  unknown_todo: 'No Todo with this id.',
  update_refused: 'goal_update refused: a settlement lacks valid evidence (no receipt of this session cited).',
  update_rejected: 'A workflow refused an Update without a typed code.',
  upstream_stream_incomplete:
    'The provider stream ended without its end marker (PR4); retried, partial output discarded.',
  usage_error: 'The command line is wrong (malformed id or argument).',
  version_conflict:
    "The deployment's routing changed while `zuno worker promote` ran (a stale conflict token); nothing was set: look and try again.",
  version_not_registered:
    'No worker of this build polls the Worker Deployment, so the server refuses to make it current: start a worker of this build first.',
  web_search_backend_failed:
    'A web_search backend answered with an error status or a body that is not its search JSON; only the provider, scheme, host, path and status are named (NW4).',
  web_search_key_missing:
    'The environment variable network.search.key_env names is unset or empty where the tool runs; nothing was sent.',
  web_search_rate_limited:
    'A web_search query was not sent: the configured rate (network.search.rate_per_minute) left no request for it in time, or the backend answered 429.',
  web_search_unconfigured:
    'web_search was called in a session without a search backend: set network.search in zuno.json (docs/web.md).',
  work_state_unavailable: "The session's work state (Plan/Todos) is not available on this worker.",
  worker_failed: 'The worker service exited while starting.',
  worker_shutdown: 'The worker is shutting down; the activity is retried on another attempt.',
  worker_start_timeout: 'The worker service did not become ready in time.',
  projection_mismatch:
    'This process would write a projection other than the one the deployment recorded in its Temporal namespace (names both); nothing started.',
  worker_target_mismatch: 'The live worker of this host serves another target than requested.',
  workflow_cancelled: 'The workflow was cancelled.',
  workflow_terminated: 'The workflow was terminated.',
  workflow_timed_out: 'The workflow timed out.',
  workspace_invalid: 'The workspace directory is not valid (or --dir names another workspace).',
  workspace_unavailable:
    "The session's workspace directory does not exist (or cannot be opened) on its host: the call is blocked and the session pauses until it is restored and resumed (issue 33).",
  write_failed: 'Writing or publishing a file failed; nothing was published.',
  zuno_home_unwritable: "Zuno's home directory cannot be written.",
} as const satisfies Record<string, string>;

/** A stable Zuno error code (a key of {@link ERROR_CODES}). */
export type ErrorCode = keyof typeof ERROR_CODES;

/** True when `value` is a catalogued code: what a failure's `type` read back from Temporal is checked with. Pure. */
export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.prototype.hasOwnProperty.call(ERROR_CODES, value);
}

/**
 * `value` as a code when it is one, else `undefined` — for a code that
 * arrives as text (an ApplicationFailure `type` another Zuno process set),
 * so callers write `asErrorCode(cause.type) ?? '<their fallback>'`. Pure.
 */
export function asErrorCode(value: unknown): ErrorCode | undefined {
  return isErrorCode(value) ? value : undefined;
}
