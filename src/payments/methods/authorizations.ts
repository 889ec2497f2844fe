// What a task's workflow input carries of a payment authorized at admission and moved later, one type per method
// that holds one (a balance holds none: its reservation is the ledger's). A new such method adds its type here.
import type { X402Authorization } from './x402/authorization.ts';

export type PaymentAuthorization = X402Authorization;
