/** The session's durable input inbox (SE1, SE2): an admitted input and its admission receipt. */

/** SE1/SE2 admission receipt returned by the `submitInput` update. */
export interface AdmissionReceipt {
  inputId: string;
  sessionId: string;
  /** driven: the caller drives it now; steered: a running turn takes it at its next safe point; pending: queued. */
  status: 'driven' | 'steered' | 'pending';
  /** true when this clientMessageId was seen before and the original receipt is returned. */
  duplicate: boolean;
}

/** An input admitted to the workflow's durable FIFO inbox. */
export interface AdmittedInput {
  inputId: string;
  text: string;
  /** `report`: a background task's completion (BG6, SE3), admitted by the workflow itself; absent: a user input. */
  kind?: 'report';
  /** With `kind: 'report'`: the task it reports. */
  taskID?: string;
  clientMessageId?: string;
  admission: AdmissionReceipt['status'];
  admittedAtMs: number;
}
