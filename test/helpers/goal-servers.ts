import { inject } from 'vitest';
import { createHarness, type Harness } from './harness.js';
import { startTimeSkippingServer, type TimeSkippingServer } from './time-skipping.js';

/**
 * Where a demo's Goal runs as a real Goal in its tests (`describe.each`): the
 * dev server of the test run, and a time-skipping test server of its own.
 */
export const GOAL_SERVERS: Array<[string, () => Promise<{ h: Harness; ts?: TimeSkippingServer }>]> = [
  ['the Temporal dev server', async () => ({ h: await createHarness({ address: inject('temporalAddress') }) })],
  [
    'the time-skipping test server',
    async () => {
      const ts = await startTimeSkippingServer();
      return { h: await ts.harness(), ts };
    },
  ],
];
