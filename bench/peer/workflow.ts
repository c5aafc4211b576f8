/**
 * The plain-activity peer of the overhead benchmark (issue 13 item 1): the
 * shape of Temporal's own AI-agent integrations — a workflow that calls a
 * model activity over HTTP, runs each tool call as a plain regular activity,
 * keeps the conversation in workflow state (so every model activity's input
 * carries it) and writes no projection. Deterministic; bundled by the
 * benchmark's own worker.
 */
import { proxyActivities } from '@temporalio/workflow';
import type { ModelMessage } from '../../core/messages.js';
import type { ProviderConfig } from '../../core/provider-config.js';
import type { PeerActivities } from './activities.js';

const { peerModel } = proxyActivities<PeerActivities>({
  startToCloseTimeout: '120s',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});
const { peerRead } = proxyActivities<PeerActivities>({
  startToCloseTimeout: '60s',
  retry: { initialInterval: '1s', maximumAttempts: 3 },
});

/** Input of {@link peerAgentWorkflow}. */
export interface PeerInput {
  prompt: string;
  /** The provider the model activity calls (the benchmark's local provider server). */
  provider: ProviderConfig;
  model: string;
  workspace: string;
  /** Runaway guard: model steps at most. */
  maxSteps: number;
}

/** Runs model steps until an answer; each step's tool calls run in parallel as `peerRead` activities. */
export async function peerAgentWorkflow(input: PeerInput): Promise<{ steps: number; calls: number }> {
  const messages: ModelMessage[] = [
    { role: 'system', text: 'You are a coding agent.' },
    { role: 'user', text: input.prompt },
  ];
  let calls = 0;
  for (let step = 0; step < input.maxSteps; step++) {
    const r = await peerModel({ provider: input.provider, model: input.model, messages });
    messages.push({ role: 'assistant', text: r.text, toolCalls: r.toolCalls });
    if (r.toolCalls.length === 0) return { steps: step + 1, calls };
    const outputs = await Promise.all(
      r.toolCalls.map((c) => peerRead({ workspace: input.workspace, callId: c.callId, argsJson: c.argsJson })),
    );
    calls += r.toolCalls.length;
    r.toolCalls.forEach((c, i) =>
      messages.push({ role: 'tool', callId: c.callId, name: c.name, content: outputs[i]! }),
    );
  }
  throw new Error(`peer: no answer after ${input.maxSteps} steps`);
}
