/**
 * Host bindings (issue 33; prisma/models.prisma `HostBinding`): a host id is
 * bound to the machine and Zuno home that first claimed it, so a second
 * machine that says it is `host-a` is refused instead of taking host-a's work.
 */
import type { Prisma } from '../../prisma/generated/sqlite/client/client.js';
import { ms } from './rows.js';
import type { HostBindingRow, HostClaim, HostClaimResult } from './types.js';

type Queries = Prisma.TransactionClient;

/** A stored binding as the contract's row (epoch ms as numbers). */
function toBinding(r: {
  host: string;
  machine: string;
  machineName: string;
  home: string;
  boundAtMs: bigint;
  lastSeenAtMs: bigint;
  takenOverFrom: string | null;
  takenOverAtMs: bigint | null;
}): HostBindingRow {
  return {
    host: r.host,
    machine: r.machine,
    machineName: r.machineName,
    home: r.home,
    boundAtMs: Number(r.boundAtMs),
    lastSeenAtMs: Number(r.lastSeenAtMs),
    ...(r.takenOverFrom !== null ? { takenOverFrom: r.takenOverFrom } : {}),
    ...(r.takenOverAtMs !== null ? { takenOverAtMs: Number(r.takenOverAtMs) } : {}),
  };
}

/** The stored binding of `host`, or null when no machine has claimed it. */
export async function readHostBinding(q: Queries, host: string): Promise<HostBindingRow | null> {
  const r = await q.hostBinding.findUnique({ where: { host } });
  return r ? toBinding(r) : null;
}

/** true when `b` is the claimant's own binding (same machine, same home). */
function sameClaimant(b: HostBindingRow, c: HostClaim): boolean {
  return b.machine === c.machine && b.home === c.home;
}

/**
 * Claims `c.host` for the claimant's machine and home: binds it on first use
 * (insert-if-absent, so two machines racing for a new id get one winner),
 * refreshes `lastSeenAtMs` when it is already the claimant's, moves it when
 * `takeOver` is set (recording whom it was taken from), and otherwise leaves
 * it and answers `refused` with the binding that holds it. Never throws for
 * a conflict: the caller turns `refused` into a typed error.
 */
export async function claimHostBinding(q: Queries, c: HostClaim, takeOver: boolean): Promise<HostClaimResult> {
  const now = ms(c.atMs);
  await q.hostBinding
    .upsert({
      where: { host: c.host },
      create: {
        host: c.host,
        machine: c.machine,
        machineName: c.machineName,
        home: c.home,
        boundAtMs: now,
        lastSeenAtMs: now,
      },
      update: {},
    })
    // Another claimant inserted the row between the upsert's read and its insert: theirs stands (read below).
    .catch((err: unknown) => {
      if ((err as { code?: string }).code !== 'P2002') throw err;
    });
  const held = (await readHostBinding(q, c.host))!;
  if (held.boundAtMs === c.atMs && sameClaimant(held, c)) return { outcome: 'bound', binding: held };
  if (sameClaimant(held, c)) {
    await q.hostBinding.update({ where: { host: c.host }, data: { lastSeenAtMs: now } });
    return { outcome: 'same', binding: { ...held, lastSeenAtMs: c.atMs } };
  }
  if (!takeOver) return { outcome: 'refused', binding: held };
  const row = await q.hostBinding.update({
    where: { host: c.host },
    data: {
      machine: c.machine,
      machineName: c.machineName,
      home: c.home,
      boundAtMs: now,
      lastSeenAtMs: now,
      takenOverFrom: `${held.machineName}:${held.home}`,
      takenOverAtMs: now,
    },
  });
  return { outcome: 'taken_over', binding: toBinding(row), previous: held };
}
