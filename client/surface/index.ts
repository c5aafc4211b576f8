/**
 * What every surface (`zuno acp`, `zuno serve`) shares (SF1): the process's
 * connections, admitting a prompt through the durable inbox, following it to
 * its linked end, and tailing the stored events.
 */
export { openSurfaceHost, serveForSurface, serveOptionsOf, type SurfaceHost } from './host.js';
export { admitPrompt, type AdmittedPrompt, type PromptRequest } from './prompt.js';
export { endedEarlier, endOf, endsPrompt, followPrompt, type PromptEnd } from './prompt-end.js';
export { beforeYoungHole, GAP_HOLD_MS, tailEvents, TAIL_POLL_MS, type TailOptions } from './event-tail.js';
