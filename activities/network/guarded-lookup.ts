/**
 * The connect-time guard of the public HTTP client (NW3): a `lookup` for
 * `net.connect`/`tls.connect` (undici passes it through) that resolves the
 * name, refuses unless EVERY address is public unicast (or allowlisted by
 * CIDR, or the name itself is allowlisted), and hands the socket exactly the
 * addresses it validated — the socket never resolves the name a second time,
 * so a rebinding resolver cannot swap a private address in between.
 */
import { lookup as dnsLookup, type LookupAddress } from 'node:dns';
import { classifyAddress, type Cidr } from './address-class.js';

/** Resolves a host name to every address (the default is the system resolver, `dns.lookup` with `all`). */
export type Resolver = (hostname: string) => Promise<LookupAddress[]>;

/** The system resolver: every address of `hostname`. */
export const systemResolver: Resolver = (hostname) =>
  new Promise((resolve, reject) =>
    dnsLookup(hostname, { all: true, verbatim: true }, (err, addresses) => (err ? reject(err) : resolve(addresses))),
  );

/** A refusal by the guard: the address and its class (the client turns it into a `network_refused` error). */
export class AddressRefused extends Error {
  constructor(
    readonly address: string,
    readonly addressClass: string,
  ) {
    super(`${address} is ${addressClass}, not a public address`);
    this.name = 'AddressRefused';
  }
}

type LookupCallback = (err: Error | null, address: string | LookupAddress[], family?: number) => void;

/**
 * Every address of `hostname`, validated (see module doc): all must be
 * public unicast, or allowlisted by CIDR, or the name itself allowlisted.
 * @throws AddressRefused for the first address that is not; an Error with
 *   code `ENOTFOUND` when the name has no address; what `resolver` throws.
 */
export async function validatedAddresses(
  resolver: Resolver,
  allow: { cidrs: readonly Cidr[]; hosts: readonly string[] },
  hostname: string,
): Promise<LookupAddress[]> {
  const addresses = await resolver(hostname);
  if (addresses.length === 0) throw Object.assign(new Error(`${hostname}: no address`), { code: 'ENOTFOUND' });
  if (allow.hosts.includes(hostname.toLowerCase())) return addresses;
  for (const a of addresses) {
    const v = classifyAddress(a.address, allow.cidrs);
    if (!v.ok) throw new AddressRefused(a.address, v.addressClass);
  }
  return addresses;
}

/**
 * The guarded `lookup` (see module doc).
 * @param allow CIDRs and host names reachable although private.
 */
export function guardedLookup(resolver: Resolver, allow: { cidrs: readonly Cidr[]; hosts: readonly string[] }) {
  return (hostname: string, options: { all?: boolean } | number, callback: LookupCallback): void => {
    const all = typeof options === 'object' && options.all === true;
    validatedAddresses(resolver, allow, hostname).then(
      (addresses) => (all ? callback(null, addresses) : callback(null, addresses[0]!.address, addresses[0]!.family)),
      (err: Error) => callback(err, ''),
    );
  };
}
