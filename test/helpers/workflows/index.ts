// Entry of the test workflow bundle: every Zuno workflow plus the fixtures below,
// so one worker (`createZunoWorker({ workflowsPath })`) hosts both.
export * from '../../../workflows/index.js';
export * from './fixtures.js';
