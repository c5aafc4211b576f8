/** What a follower follows: the kind of the thing a person re-attaches to. */
export type ReattachKind = 'session' | 'goal' | 'council';

/**
 * The command that picks up following `kind` `id` again after a follower
 * stopped (Temporal unreachable for too long, Ctrl-C, a closed terminal),
 * for messages: `zuno session follow ses_…`, `zuno goal show goal_… --follow`,
 * `zuno council show cr_… --follow`. The one place that names these commands. Pure.
 */
export function reattachHint(kind: ReattachKind, id: string): string {
  switch (kind) {
    case 'session':
      return `zuno session follow ${id}`;
    case 'goal':
      return `zuno goal show ${id} --follow`;
    case 'council':
      return `zuno council show ${id} --follow`;
  }
}
