import { describe, expect, it } from 'vitest';
import { BACKENDS, useTestStore } from './harness.js';

/** Issue 33: a host id is bound to the machine and home that first claimed it, on both backends. */
for (const backend of BACKENDS) {
  describe(`host bindings (${backend})`, () => {
    const t = useTestStore(backend);
    const a = { host: 'host-a', machine: 'm1', machineName: 'box1', home: '/h/a' };

    it('binds on first use, renews for the same claimant, refuses another, moves on take-over', async () => {
      expect(await t.store.getHostBinding('host-a')).toBeNull();
      const first = await t.store.claimHost({ ...a, atMs: 1000 }, false);
      expect(first).toMatchObject({ outcome: 'bound', binding: { host: 'host-a', machine: 'm1', boundAtMs: 1000 } });
      expect(await t.store.claimHost({ ...a, atMs: 2000 }, false)).toMatchObject({
        outcome: 'same',
        binding: { boundAtMs: 1000, lastSeenAtMs: 2000 },
      });
      const other = { ...a, machine: 'm2', machineName: 'box2', home: '/h/b', atMs: 3000 };
      expect(await t.store.claimHost(other, false)).toMatchObject({
        outcome: 'refused',
        binding: { machine: 'm1', home: '/h/a', lastSeenAtMs: 2000 },
      });
      expect(await t.store.claimHost({ ...a, home: '/h/other', atMs: 3500 }, false)).toMatchObject({
        outcome: 'refused',
      });
      const moved = await t.store.claimHost(other, true);
      expect(moved).toMatchObject({
        outcome: 'taken_over',
        previous: { machine: 'm1' },
        binding: { machine: 'm2', home: '/h/b', boundAtMs: 3000, takenOverFrom: 'box1:/h/a', takenOverAtMs: 3000 },
      });
      expect(await t.store.claimHost({ ...a, atMs: 4000 }, false)).toMatchObject({ outcome: 'refused' });
      expect(await t.store.getHostBinding('host-a')).toMatchObject({ machine: 'm2', takenOverFrom: 'box1:/h/a' });
    });

    it('two machines racing for a new host id: exactly one is bound', async () => {
      const claims = await Promise.all(
        ['m1', 'm2', 'm3'].map((m) => t.store.claimHost({ ...a, host: 'host-r', machine: m, atMs: 5000 }, false)),
      );
      expect(claims.filter((c) => c.outcome === 'bound')).toHaveLength(1);
      expect(claims.filter((c) => c.outcome === 'refused')).toHaveLength(2);
    });
  });
}
