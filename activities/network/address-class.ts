/**
 * NW1, NW3 (issue 31): whether a resolved or literal IP address is a public
 * unicast address a web tool may connect to. IPv4-mapped (`::ffff:a.b.c.d`),
 * IPv4-compatible (`::a.b.c.d`) and NAT64-embedded (`64:ff9b::/96`) IPv6
 * forms are unwrapped to their IPv4 address first, so a hex-written mapped
 * loopback is refused like `127.0.0.1`; 6to4 and Teredo transition forms are
 * refused outright. Range names come from `ipaddr.js` (loopback, private,
 * linkLocal — 169.254.169.254 among them —, carrierGradeNat, multicast,
 * unspecified, broadcast, reserved — documentation and benchmarking ranges —,
 * uniqueLocal, …); only `unicast` passes. An allowlist of CIDRs lets a
 * deployment reach named private ranges (internal CI, registries).
 */
import ipaddr from 'ipaddr.js';

/** The verdict on one address: allowed, or refused with the class that refused it. */
export type AddressVerdict = { ok: true; address: string } | { ok: false; address: string; addressClass: string };

/** A parsed CIDR of the private allowlist. */
export type Cidr = [ipaddr.IPv4 | ipaddr.IPv6, number];

/** NAT64 well-known prefix 64:ff9b::/96 (RFC 6052). */
const NAT64 = ipaddr.parseCIDR('64:ff9b::/96');

/** The IPv4 address an IPv6 address carries (mapped, compatible, NAT64) and the form it came in, or null. */
function embeddedIPv4(v6: ipaddr.IPv6): { v4: ipaddr.IPv4; form: string } | null {
  if (v6.isIPv4MappedAddress()) return { v4: v6.toIPv4Address(), form: 'ipv4Mapped' };
  const p = v6.parts;
  const low = (): ipaddr.IPv4 => new ipaddr.IPv4([p[6]! >> 8, p[6]! & 0xff, p[7]! >> 8, p[7]! & 0xff]);
  // IPv4-compatible ::a.b.c.d (deprecated): the first 96 bits zero, not :: or ::1 themselves.
  if (p.slice(0, 6).every((x) => x === 0) && (p[6] !== 0 || p[7]! > 1)) return { v4: low(), form: 'ipv4Compatible' };
  if (v6.match(NAT64)) return { v4: low(), form: 'rfc6052' };
  return null;
}

/**
 * Classifies one address.
 * @param address an IP address as text (IPv4 dotted, IPv6 with or without brackets).
 * @param allow CIDRs that are reachable although private (the deployment's `network.allow_private`).
 * @returns `{ ok: true }` for a public unicast (or allowlisted) address; otherwise the refusing class
 *   (`loopback`, `private`, `linkLocal`, `ipv4Mapped:loopback`, `not an IP address`, …). Never throws.
 */
export function classifyAddress(address: string, allow: readonly Cidr[] = []): AddressVerdict {
  const text = address.replace(/^\[|\]$/g, '');
  if (!ipaddr.isValid(text)) return { ok: false, address: text, addressClass: 'not an IP address' };
  const parsed = ipaddr.parse(text);
  const inner = parsed.kind() === 'ipv6' ? embeddedIPv4(parsed as ipaddr.IPv6) : null;
  const target = inner?.v4 ?? parsed;
  if (allow.some(([net, bits]) => net.kind() === target.kind() && target.match(net, bits)))
    return { ok: true, address: text };
  const range = target.range();
  if (range === 'unicast') return { ok: true, address: text };
  return { ok: false, address: text, addressClass: inner ? `${inner.form}:${range}` : range };
}

/**
 * Parses the allowlist entries that are CIDRs or single addresses (`10.1.2.0/24`, `fd00::/8`, `10.0.0.5`);
 * other entries are host names (matched by name elsewhere).
 * @throws Error naming the entry when a CIDR is malformed.
 */
export function parseAllowlist(entries: readonly string[]): { cidrs: Cidr[]; hosts: string[] } {
  const cidrs: Cidr[] = [];
  const hosts: string[] = [];
  for (const e of entries) {
    if (e.includes('/')) {
      try {
        cidrs.push(ipaddr.parseCIDR(e));
      } catch {
        throw new Error(`"${e}" is not a CIDR like 10.1.2.0/24`);
      }
    } else if (ipaddr.isValid(e)) {
      const a = ipaddr.parse(e);
      cidrs.push([a, a.kind() === 'ipv4' ? 32 : 128]);
    } else hosts.push(e.toLowerCase());
  }
  return { cidrs, hosts };
}
