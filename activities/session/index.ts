/**
 * What other areas use of the session's activities: starting a session
 * workflow with its first input (SE1).
 */
export { startSessionWorkflow, titleOf, withClientMessageId } from './start-session.js';
