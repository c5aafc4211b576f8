/**
 * How an interrupted call ended, in one plain line (SF13): the same words in
 * `zuno session show`, `zuno run`, the ACP tool-call update and the SSE
 * `tool.dispatch.interrupted` event, built from durable facts only (the
 * call's stored outcome, the cause recorded with it, the paths it may have
 * changed). Pure.
 */

/** Plain words for why an outcome is uncertain or a call did not run; other causes are shown as stored. */
export const CAUSE_WORDS: Readonly<Record<string, string>> = {
  lost_outcome: 'its outcome was lost (the activity timed out or its worker went away)',
  interrupted: 'an interrupt stopped it before it reported',
  failed: 'it kept failing',
  not_run: 'the turn was interrupted before it ran',
  cancelled: 'it was cancelled while the command ran',
  timeout: 'it timed out while the command ran',
  capture_failed: 'its output could not be captured',
};

/** `cause` in plain words ({@link CAUSE_WORDS}), or as stored when unknown. */
export function causeWords(cause: string): string {
  return CAUSE_WORDS[cause] ?? cause;
}

/**
 * The verdict line of a call: `uncertain: an interrupt stopped it before it
 * reported; may have changed a.txt`, `not run: the turn was interrupted
 * before it ran`, `error: it kept failing`.
 */
export function interruptVerdict(v: { outcome: string; cause: string; paths?: readonly string[] }): string {
  const head = v.cause === 'not_run' ? 'not run' : v.outcome;
  const paths = v.paths?.length ? `; may have changed ${v.paths.join(', ')}` : '';
  return `${head}: ${causeWords(v.cause)}${paths}`;
}
