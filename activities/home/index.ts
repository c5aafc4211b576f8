/**
 * Zuno's directories as the CLI (client/) reaches them: the user-level home
 * (`$ZUNO_HOME`, else `~/.zuno`), creating directories safely, and the
 * `.gitignore` a `.zuno` directory holds. The public entry of these
 * activity-side helpers: client/ imports them from here only
 * (eslint.config.js enforces it).
 */
export { makeDirs, zunoHome } from '../zuno-home.js';
export { ensureZunoGitignore } from '../tools/zuno-gitignore.js';
