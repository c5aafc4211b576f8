/**
 * The guarded network client (issue 31, NW1–NW3): what the web tools, the
 * release watch and the CLI's config checks use.
 */
export { classifyAddress, parseAllowlist } from './address-class.js';
export { PublicHttpClient, MAX_REDIRECTS } from './public-http-client.js';
export type { FetchLimits, PublicHttpOptions, PublicResponse } from './public-http-client.js';
export { NetworkError, safeUrl, type NetworkPhase } from './errors.js';
export { checkTarget, type TargetCheck } from './target-check.js';
