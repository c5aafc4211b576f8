import { EV, parseEventData } from '../../core/events.js';
import type { ChildEvidence, ReportArtifact } from '../../core/delegation/report.js';
import type { ProjectionStore } from '../projection/types.js';
import { reportFileName } from '../tools/report-write.js';

/**
 * What child session `childSessionId` did, from its projection (DC13,
 * DC17): model requests answered and tokens (its last `session.usage`
 * event), tool calls by outcome and by tool, and its report artifacts —
 * only `report_write` results of this child whose call started at or
 * after `boundaryMs` (the job's evidence boundary; each is verified to be
 * the child's own row).
 */
export async function childEvidence(
  store: ProjectionStore,
  childSessionId: string,
  boundaryMs: number,
): Promise<ChildEvidence> {
  const transcript = await store.loadTranscript(childSessionId);
  const usageEvent = await store.lastEvent(childSessionId, EV.usage);
  const usage = usageEvent ? parseEventData(EV.usage, usageEvent.data) : null;
  const toolCalls: Record<string, number> = {};
  const tools: Record<string, number> = {};
  const artifacts: ReportArtifact[] = [];
  for (const c of transcript?.toolCalls ?? []) {
    if (c.sessionId !== childSessionId) continue;
    const outcome = c.outcome ?? 'pending';
    toolCalls[outcome] = (toolCalls[outcome] ?? 0) + 1;
    tools[c.tool] = (tools[c.tool] ?? 0) + 1;
    const art = (c.result as { reportArtifact?: Record<string, unknown> } | null | undefined)?.reportArtifact;
    if (
      c.tool === 'report_write' &&
      c.outcome === 'ok' &&
      art &&
      (c.startedAtMs ?? 0) >= boundaryMs &&
      // DC17: the receipt belongs to this child (its file name carries the child session's digest).
      typeof art.name === 'string' &&
      art.sessionDigest === reportFileName(childSessionId, c.callId, art.name).sessionDigest
    ) {
      artifacts.push({
        name: String(art.name ?? ''),
        path: String(art.path ?? ''),
        ...(typeof art.sha256 === 'string' ? { sha256: art.sha256 } : {}),
        ...(typeof art.bytes === 'number' ? { bytes: art.bytes } : {}),
      });
    }
  }
  return {
    modelRequests: usage?.cumulative.requests ?? 0,
    toolCalls,
    tools,
    tokens: usage ? { ...usage.cumulative.tokens } : null,
    artifacts,
  };
}
