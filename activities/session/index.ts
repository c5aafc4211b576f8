/**
 * What other areas use of the session's activities: starting a session
 * workflow with its first input (SE1).
 */
export { startSessionWorkflow, titleOf, withClientMessageId } from './start-session.js';
/** What `zuno prompt show` assembles (issue 32): the offer, the host facts, the segments, their receipt lines. */
export { offeredBuiltIns, type ToolOfferSets } from './tool-offer.js';
export { hostFacts } from './system/environment-facts.js';
export { systemSegments, type SystemInputs } from './system/system-segments.js';
export { segmentReceipts } from './system/prompt-receipt.js';
export { loadRuleFiles } from './rule-files.js';
export { estimateTextTokens, estimatorFor } from './context/estimator.js';
