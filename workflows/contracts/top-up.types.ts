// The top-up workflow's contract with the api: its input and result. Types only, so the client side never imports
// the workflow's activities.

export interface TopUpInput {
  topUpId: string;
}

export type TopUpResult =
  | { outcome: 'settled'; transaction: string }
  /** The payment will never move (the payer's funds gone, its window passed): nothing was credited. */
  | { outcome: 'failed'; reason: string };

export const topUpWorkflowId = (topUpId: string) => `topup:${topUpId}`;

/** The workflow's signature, as the client side starts and awaits it (never the body itself). */
export type TopUpWorkflow = (input: TopUpInput) => Promise<TopUpResult>;
