/**
 * The public entry of `activities/infra/` for the CLI (issue 27: `client/`
 * imports activities only through `activities/<area>/index.ts`): where the
 * installation's files are, how a pinned tool binary is found, and the
 * home's stored keys for the host worker service. All load only Node
 * built-ins, so the CLI's startup stays light.
 */
export { INSTALL_ROOT } from './install-root.js';
export { findBinary } from './tool-binaries.js';
export { readCredentials, storeCredential } from './credentials.js';
export { machineHostId } from './host-id.js';
