// What every way to pay answers for admission (src/use-cases/generations/admit.ts), so the pipeline is one for
// all of them: a method is registered in src/payments/methods/registered.ts, and its own folder holds all it knows.
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import type { CatalogModel } from '../../catalog/catalog.ts';
import type { AccountKind, Task } from '../../generated/prisma/client.ts';
import type { TaskPaymentView, taskView } from '../../generations/task-view.ts';
import type { AdmittedTask, AdmitTaskInput, HeldPaymentRules } from '../../generations/tasks.ts';
import type { GenerationInput } from '../../../workflows/contracts/generation.types.ts';
import type { GenerationRequest } from '../../domain/generation-request.ts';

/** A task admitted earlier, read with what its answer needs (a payment's row, where a method keeps one). */
/** A task admitted earlier under the same claim: what its view shows, and the request it was admitted with. */
export type EarlierTask = Parameters<typeof taskView>[0] & Pick<Task, 'request'>;

/** What the worker's admit activity writes a task from, with the payment its workflow input carries. */
export type PaidAdmission = AdmitTaskInput & Pick<PaidBy, 'payment'>;

/** A request as priced for admission: what a method checks a payment against. */
export interface PricedRequest {
  model: CatalogModel;
  request: Pick<GenerationRequest, 'model' | 'type'>;
  costMicros: bigint;
}

/** Who pays, as the task's workflow input carries it: the task a claim names, its account, and any authorization. */
export type PaidBy = Pick<GenerationInput, 'taskId' | 'accountId' | 'idempotencyKey' | 'payment' | 'apiKeyId'>;

/** One payer's request as its method admits it: the claim it makes is held inside. */
export interface PayerAdmission {
  /** The kind of account its task belongs to (search attributes and reads name it). */
  accountKind: AccountKind;
  /** Whose uploads the request's inputs may name: none where the payer has no account of its own. */
  uploadsOwner: string | null;
  /** Whether the answer hands the payer a token to follow its task (it has no key to read it with). */
  handsAccess: boolean;
  /** The task this claim named before (a retry), whatever its body; the pipeline compares the bodies. */
  earlierTask(prisma: PrismaClient): Promise<EarlierTask | null>;
  /** Before inputs priced on their length are downloaded: refuses a payment below the least they can cost. */
  checkBeforeMeasuring?(declared: PricedRequest, leastMicros: bigint): Promise<void>;
  /** Who pays the priced request. `admittedEarlier`: its task was admitted with this claim, which has not moved. */
  authorize(priced: PricedRequest, admittedEarlier: boolean): Promise<PaidBy>;
  /** The same claim for another request's body. */
  reusedError(): Error;
  /** Nothing was admitted and nothing charged: how the payer retries. */
  unavailableError(): Error;
}

/**
 * A way to pay: recognised by its payer's `kind`, and how it admits that payer's request. `D`: what admitting needs;
 * `S`: what settling needs (the services registered.ts makes, on the worker).
 */
export interface PaymentMethod<P extends { kind: string }, D, S = unknown> {
  kind: P['kind'];
  admission(deps: D, payer: P): PayerAdmission;
  /**
   * A method that pays a request carrying no API key (x402: the payment rides in its headers): whether this server
   * takes it, and the payer it makes of such a request for `resourceUrl`. One registered method at most claims them.
   */
  keyless?: {
    offered(config: Config): boolean;
    payer(headers: IncomingHttpHeaders, resourceUrl: string): P;
  };
  /**
   * Worker side: writes the task row `queued` with what this method holds for it (a balance's reservation, a
   * payment's row) in one transaction; a repeat finds them. Throws a refusal admission answers (no money, busy payer).
   */
  admit(prisma: PrismaClient, input: PaidAdmission): Promise<AdmittedTask>;
  /** Whether a task's workflow input was paid this way. */
  paid(paidBy: PaidBy): boolean;
  /** How the task's summary (the Temporal Web UI's list) says it was paid. */
  describe(paidBy: PaidBy): string;
  /**
   * The headers a task's answer carries for its payment once settled (a receipt the payer's client reads), with the
   * extensions' answers (offer-receipt's signed receipt).
   */
  receiptHeaders?(payment: TaskPaymentView, extensions?: Record<string, unknown>): Record<string, string> | undefined;
  /** MCP: the HTTP headers a tool call's `_meta` carries this method's payment as (none: it carries none). */
  mcpPaymentHeaders?(meta: Record<string, unknown> | undefined): Record<string, string>;
  /** MCP: the tool result's `_meta` for the receipt an answer's headers carry, where they carry this method's. */
  mcpReceiptMeta?(headers: Record<string, string>): Record<string, unknown> | undefined;
  /** What the start-up banner says of this method (how to pay with it, or why it is off). */
  bannerLines?(config: Config): string[];
  /** A method whose payment is held beside the task (a row of its own, not a reservation): what ending the task does. */
  held?: HeldPaymentRules;
  /**
   * Worker side, once the task delivered: moves a payment authorized at admission, for what the task used. Methods
   * whose money moved at admission (a balance's reservation, charged by settleTask) have none.
   */
  settle?(deps: S, task: { taskId: string; usedMicros: bigint }): Promise<unknown>;
}
