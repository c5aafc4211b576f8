/**
 * A guarded URL's host checked ahead of time (issue 31): what the client
 * would refuse at connect time, asked once before a long wait starts — a
 * release watch on a private address the allowlist does not name would
 * otherwise fail every check for a day. Advisory: the connect-time guard
 * still decides every request.
 */
import { classifyAddress, parseAllowlist } from './address-class.js';
import { AddressRefused, systemResolver, validatedAddresses, type Resolver } from './guarded-lookup.js';

/** What {@link checkTarget} found. */
export type TargetCheck =
  { ok: true } | { ok: false; address: string; addressClass: string } | { ok: 'unknown'; reason: string };

/**
 * Whether `url`'s host is reachable under `allowPrivate`: a literal address
 * classified, a name resolved (every address must pass, as at connect time).
 * @returns `unknown` when the name does not resolve now (a later check may
 *   succeed); never throws.
 */
export async function checkTarget(
  url: URL,
  allowPrivate: readonly string[],
  resolver: Resolver = systemResolver,
): Promise<TargetCheck> {
  const allow = parseAllowlist(allowPrivate);
  const host = url.hostname.replace(/^\[|\]$/g, '');
  if (/^[0-9.]+$/.test(host) || host.includes(':')) {
    const v = classifyAddress(host, allow.cidrs);
    return v.ok ? { ok: true } : { ok: false, address: host, addressClass: v.addressClass };
  }
  try {
    await validatedAddresses(resolver, allow, host);
    return { ok: true };
  } catch (err) {
    if (err instanceof AddressRefused) return { ok: false, address: err.address, addressClass: err.addressClass };
    return { ok: 'unknown', reason: (err as { code?: string }).code ?? (err as Error).message };
  }
}
