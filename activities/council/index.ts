/**
 * The Council's activities (issue 12 items 5–6; core/council/contract.ts
 * `CouncilActivities`), bound to the projection store. Registered by
 * worker/worker.ts; each runs on the Council's route (workflows/council-machine.ts).
 */
import type { CouncilActivities } from '../../core/council/contract.js';
import type { ProjectionStore } from '../projection/types.js';
import { createPrepareCouncil } from './prepare-council.js';
import { createRecordCouncil } from './record-council.js';
import { createReadSeatReport } from './seat-report.js';
import { createSettleCouncilCall } from './settle-call.js';
import { createSynthesizeCouncil } from './synthesize.js';

/** Every Council activity. */
export function createCouncilActivities(store: ProjectionStore): CouncilActivities {
  return {
    prepareCouncil: createPrepareCouncil(),
    recordCouncil: createRecordCouncil(store),
    readSeatReport: createReadSeatReport(store),
    synthesizeCouncil: createSynthesizeCouncil(store),
    settleCouncilCall: createSettleCouncilCall(store),
  };
}
