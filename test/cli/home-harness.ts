import { inject } from 'vitest';
import { createHarness, type Harness } from '../helpers/harness.js';
import { makeHome } from './helpers.js';

/**
 * A CLI test's Zuno home on the suite's dev server and a harness whose
 * in-process worker and projection use that home, so `runZuno` commands and
 * the test's own sessions meet. The harness is closed by `cleanups`.
 */
export async function homeHarness(cleanups: (() => Promise<unknown>)[]): Promise<{ h: Harness; home: string }> {
  const address = inject('temporalAddress');
  const { home } = makeHome({ address });
  const h = await createHarness({ address, stateDir: home });
  cleanups.push(() => h.close());
  return { h, home };
}
