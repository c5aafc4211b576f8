/**
 * The `network` key of `zuno.json` (issue 31, NW3–NW6; docs/web.md) and its
 * resolution into the {@link NetworkSessionConfig} a session carries.
 */
import { z } from 'zod';
import type { NetworkSessionConfig } from '../core/network.js';
import { parseAllowlist } from '../activities/network/index.js';

/** Default `network.search.rate_per_minute`. */
export const SEARCH_RATE_DEFAULT = 30;
/** Default `network.search.concurrency`. */
export const SEARCH_CONCURRENCY_DEFAULT = 2;

const AllowEntry = z
  .string()
  .min(1)
  .max(255)
  .superRefine((e, ctx) => {
    try {
      parseAllowlist([e]);
    } catch (err) {
      ctx.addIssue({ code: 'custom', message: (err as Error).message });
    }
  });

const SearchSchema = z.strictObject({
  /** The backend kind: `searxng` (a SearXNG instance's JSON API). */
  backend: z.literal('searxng'),
  /** The instance's base URL: http(s), no credentials, no query. */
  url: z.url({ protocol: /^https?$/ }).refine((u) => {
    if (!URL.canParse(u)) return true; // already reported by z.url
    const p = new URL(u);
    return p.username === '' && p.password === '' && p.search === '';
  }, 'expected an http(s) base URL without credentials or query'),
  /** The environment variable holding an API key (sent as a bearer token); the key itself never goes in zuno.json. */
  key_env: z
    .string()
    .regex(/^[A-Za-z_][A-Za-z0-9_]*$/, 'expected an environment variable name')
    .optional(),
  rate_per_minute: z.number().int().min(1).max(600).default(SEARCH_RATE_DEFAULT),
  concurrency: z.number().int().min(1).max(8).default(SEARCH_CONCURRENCY_DEFAULT),
});

/** `zuno.json` `network`: every key optional; unknown keys are refused by name. */
export const NetworkConfigSchema = z.strictObject({
  /** NW3: private addresses, CIDRs (`10.1.2.0/24`) and host names (`ci.internal`) the web tools may reach. */
  allow_private: z.array(AllowEntry).max(64).default([]),
  /** NW4: the `web_search` backend; absent — the tool is not offered. */
  search: SearchSchema.optional(),
});

/** Validated `zuno.json` `network`. */
export type NetworkConfig = z.infer<typeof NetworkConfigSchema>;

/**
 * Resolves zuno.json `network` into what a session carries. Pure.
 * @returns undefined when nothing is set (no allowlist, no search backend).
 */
export function sessionNetwork(zcfg: { network: NetworkConfig }): NetworkSessionConfig | undefined {
  const n = zcfg.network;
  if (n.allow_private.length === 0 && !n.search) return undefined;
  return {
    allowPrivate: [...n.allow_private],
    ...(n.search
      ? {
          search: {
            kind: n.search.backend,
            url: n.search.url,
            ...(n.search.key_env ? { keyEnv: n.search.key_env } : {}),
            ratePerMinute: n.search.rate_per_minute,
            concurrency: n.search.concurrency,
          },
        }
      : {}),
  };
}
