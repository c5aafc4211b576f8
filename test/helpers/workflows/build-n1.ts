// Bundle entry of "build N+1" (test/worker/rolling-upgrade.test.ts): every Zuno workflow and build N+1's upgradeWorkflow.
export * from '../../../workflows/index.js';
export { upgradeWorkflowN1 as upgradeWorkflow } from './upgrade.js';
