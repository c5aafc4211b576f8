/**
 * API keys for the host worker service (issue 25 item 2). The service is
 * started once and outlives the command that started it, so its own
 * environment holds the keys of that first command only. A command that
 * starts or resumes work with a provider whose key variable is set in its
 * own environment stores that variable in `<home>/credentials.json` (mode
 * 0600, the home's owner only); before each model call the worker copies
 * the file's variables into its environment when the file changed. The
 * file wins over the service's start environment: it holds what the newest
 * command was given (a rotated key reaches a running service). A key is
 * never written into workflow history or the projection. Issue 30: the
 * variables a session's MCP `env`/`headers` templates reference (`${NAME}`)
 * are stored the same way (client/serving.ts `shareMcpVariables`), so an MCP
 * server the service starts gets the token the command was given.
 */
import { chmodSync, mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/** Path of a home's stored provider keys. */
export function credentialsPath(stateDir: string): string {
  return join(stateDir, 'credentials.json');
}

/** The stored variables (name → value); empty when the file is absent or unreadable. */
export function readCredentials(stateDir: string): Record<string, string> {
  try {
    const parsed = JSON.parse(readFileSync(credentialsPath(stateDir), 'utf8')) as unknown;
    if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) return {};
    const out: Record<string, string> = {};
    for (const [k, v] of Object.entries(parsed)) if (typeof v === 'string' && v !== '') out[k] = v;
    return out;
  } catch {
    return {};
  }
}

/**
 * Stores `name` = `value` in the home's credentials file (atomically, mode
 * 0600) unless it holds that value already. Returns true when it wrote.
 */
export function storeCredential(stateDir: string, name: string, value: string): boolean {
  const all = readCredentials(stateDir);
  if (all[name] === value) return false;
  all[name] = value;
  mkdirSync(stateDir, { recursive: true });
  const file = credentialsPath(stateDir);
  const tmp = `${file}.${process.pid}.tmp`;
  writeFileSync(tmp, `${JSON.stringify(all, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, file);
  return true;
}

/** Applies a home's stored keys to this process's environment, re-reading the file only when it changed. */
export class CredentialRefresher {
  private seen = '';

  constructor(private readonly stateDir: string) {}

  /** Copies the stored variables into `process.env` when the file changed since the last call. */
  refresh(): void {
    let stamp: string;
    try {
      const st = statSync(credentialsPath(this.stateDir));
      stamp = `${st.mtimeMs}/${st.size}/${st.ino}`;
    } catch {
      return;
    }
    if (stamp === this.seen) return;
    this.seen = stamp;
    for (const [k, v] of Object.entries(readCredentials(this.stateDir))) process.env[k] = v;
  }
}
