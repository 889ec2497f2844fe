// What an x402 task's workflow input carries of its payment: verified by the api, settled by the worker.
/** A verified x402 authorization, as the workflow carries it (JSON: amounts and times are strings). */
export interface X402Authorization {
  scheme: string;
  network: string;
  /** Token address, payer and nonce, lowercased. */
  asset: string;
  payer: string;
  payTo: string;
  nonce: string;
  /** Atomic units of the asset (micro-USD for USDC). */
  amount: string;
  /** Unix seconds. */
  validBefore: string;
  /** The x402 payment payload as received, and the offer it pays: what settlement sends the facilitator. */
  payload: object;
  requirement: object;
  /** How many of this payer's tasks may be queued or processing at once. */
  maxTasksInFlight: number;
  /** The client's payment identifier (x402's payment-identifier extension): it names the task for a retry. */
  paymentId?: string;
}

/** An authorization may be valid "for ever" (a uint256); a timestamp column stops at year 9999. */
const lastSecondOf9999 = 253_402_300_799;

/** When an authorization stops being settleable, as its row stores it (Unix seconds in, capped at 9999). */
export const authorizationDeadline = (validBefore: string | bigint) =>
  new Date(Math.min(Number(validBefore), lastSecondOf9999) * 1000);
