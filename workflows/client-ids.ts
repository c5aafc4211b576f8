import type { AdmissionReceipt } from '../core/session/inbox.js';

/**
 * Most client message ids one session remembers (SE2). Past it, an input that
 * carries a new client message id is rejected as `client_ids_exhausted`
 * (start a new session) — never admitted without the idempotency it asked
 * for. About 30 bytes per entry in the continue-as-new payload: 20 000
 * entries stay well under Temporal's 2 MiB payload limit.
 */
export const MAX_CLIENT_IDS = 20_000;

const STATUS_CODE = { driven: 'd', steered: 's', pending: 'p' } as const;
const STATUS_OF: Record<string, AdmissionReceipt['status']> = { d: 'driven', s: 'steered', p: 'pending' };

/**
 * 64-bit FNV-1a of a string's UTF-16 units, as 16 hex characters (two
 * 32-bit lanes with different offsets). Deterministic, no Node built-ins.
 */
export function clientIdKey(id: string): string {
  let a = 0x811c9dc5;
  let b = 0x050c5d1f;
  for (let i = 0; i < id.length; i++) {
    const c = id.charCodeAt(i);
    a = Math.imul(a ^ c, 0x01000193) >>> 0;
    b = Math.imul(b ^ c ^ (a >>> 13), 0x01000193) >>> 0;
  }
  return a.toString(16).padStart(8, '0') + b.toString(16).padStart(8, '0');
}

/**
 * SE2: every client message id the session admitted, for the session's whole
 * life (up to {@link MAX_CLIENT_IDS}), carried across continue-as-new as
 * compact `key:inputSeq:status` strings; a resent id returns its original
 * receipt. The key is a 64-bit hash: a different id colliding with a stored
 * one is about 1 in 10^10 at the cap. Deterministic workflow state.
 */
export class ClientIdTable {
  private readonly entries = new Map<string, string>();

  /**
   * @param carried entries from {@link ClientIdTable.toCarried} of the run that continued-as-new.
   * @param legacy `[clientMessageId, receipt]` pairs carried by runs recorded before this table existed.
   */
  constructor(
    private readonly sessionId: string,
    carried: readonly string[] = [],
    legacy: readonly [string, AdmissionReceipt][] = [],
  ) {
    for (const e of carried) {
      const at = e.indexOf(':');
      if (at > 0) this.entries.set(e.slice(0, at), e.slice(at + 1));
    }
    for (const [id, r] of legacy) this.remember(id, r);
  }

  /** The original receipt of a client message id already admitted (with `duplicate: true`), or undefined. */
  lookup(clientMessageId: string): AdmissionReceipt | undefined {
    const v = this.entries.get(clientIdKey(clientMessageId));
    if (v === undefined) return undefined;
    const [seq, code] = v.split(':');
    return { inputId: `in_${seq}`, sessionId: this.sessionId, status: STATUS_OF[code!] ?? 'pending', duplicate: true };
  }

  /** true when no new client message id can be remembered. */
  full(): boolean {
    return this.entries.size >= MAX_CLIENT_IDS;
  }

  /** Records the receipt of a newly admitted input carrying `clientMessageId`. */
  remember(clientMessageId: string, receipt: AdmissionReceipt): void {
    const seq = receipt.inputId.replace(/^in_/, '');
    this.entries.set(clientIdKey(clientMessageId), `${seq}:${STATUS_CODE[receipt.status]}`);
  }

  /** The compact entries to carry across continue-as-new. */
  toCarried(): string[] {
    return [...this.entries].map(([k, v]) => `${k}:${v}`);
  }
}
