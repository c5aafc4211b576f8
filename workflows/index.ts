// Entry point of the workflow bundle: every workflow type the worker hosts.
export { sessionWorkflow, stateQuery, submitInputUpdate } from './session.js';
export { goalWorkflow } from './goal.js';
export { councilWorkflow } from './council.js';
