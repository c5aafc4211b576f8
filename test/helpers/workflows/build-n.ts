// Bundle entry of "build N" (test/worker/rolling-upgrade.test.ts): every Zuno workflow and build N's upgradeWorkflow.
export * from '../../../workflows/index.js';
export { upgradeWorkflowN as upgradeWorkflow } from './upgrade.js';
