// What every way to pay answers for admission (src/use-cases/generations/admit.ts), so the pipeline is one for
// all of them: a method is registered in src/payments/methods/registered.ts, and its own folder holds all it knows.
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import type { CatalogModel } from '../../catalog/catalog.ts';
import type { AccountKind, Prisma, Task, X402TopUp } from '../../generated/prisma/client.ts';
import type { TaskPaymentView, taskView } from '../../generations/task-view.ts';
import type { AdmittedTask, AdmitTaskInput, HeldPaymentRules } from '../../generations/tasks.ts';
import type { GenerationInput } from '../../../workflows/contracts/generation.types.ts';
import type { GenerationRequest } from '../../domain/generation-request.ts';
import type { JWSSigner, ReceiptFacts, Signers, signReceipt } from '../receipts/receipts.ts';

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

/** Where a request carries a method's credential (PaymentRegistry.claimant reads `Authorization` first). */
export type CredentialPlace = 'authorization' | 'own-headers';

/** A refusal of a payment, worded for the caller, with its method's reason code where it has one. */
export type Refuse = (message: string, reason?: string) => Error;

/** A balance's top-up, as its row keeps it (the `x402_topups` table: the one method that tops up so far). */
export type TopUpRow = X402TopUp;

export interface TopUpRequest {
  /**
   * The account credited, or the one made for the payer once its payment is verified (a paid registration): made in
   * the transaction that writes the payment's row, under its lock, so a twin of the payment makes none.
   */
  accountId: string | ((tx: Prisma.TransactionClient, payer: string) => Promise<string>);
  amountMicros: bigint;
  /** The URL being paid (the top-up endpoint), as the offer names it. */
  resourceUrl: string;
  headers: IncomingHttpHeaders;
}

/**
 * Topping a balance up with a method's payment: verified and kept by the api (`authorize`), then settled and credited
 * once by the top-up workflow (`settle`), which the task reconciler starts again for one left `unsettled`.
 */
export interface TopUps<D = never, S = never> {
  offered(config: Config): boolean;
  /** The top-up the request's payment makes (found again for a retry); a 402 offering the amount without one. */
  authorize(deps: D & { prisma: PrismaClient }, request: TopUpRequest): Promise<{ topUp: TopUpRow; refuse: Refuse }>;
  /** The top-up as its row is now. */
  find(prisma: PrismaClient, topUpId: string): Promise<TopUpRow>;
  /** A top-up asked without an API key: only offered (whose balance would it credit?). */
  refuseKeyless(deps: D, request: Omit<TopUpRequest, 'accountId'>): Promise<never>;
  /** Worker side: settles and credits it once; throws `notSettled` when it never will move, anything else to retry. */
  settle(deps: S, topUpId: string): Promise<TopUpRow>;
  /** A payment that will never move: its reason, or undefined for any other error. */
  notSettled(error: unknown): string | undefined;
  /** Top-ups kept before `createdBefore`, neither settled nor failed, oldest first. */
  unsettled(prisma: PrismaClient, input: { createdBefore: Date; limit: number }): Promise<TopUpRow[]>;
  /** A settled top-up's signed receipt, and the headers its answer carries it in (x402's PAYMENT-RESPONSE). */
  receipt(signer: ReceiptSigner, topUp: TopUpRow, resourceUrl: string): Promise<SignedReceipt>;
}

/** A task whose receipts are asked for, with the account it belongs to. */
export interface ReceiptTask {
  id: string;
  accountId: string;
}

/** What signs receipts (the receipt key), and a receipt as its method answers it: in the body and in headers. */
export type ReceiptSigner = Awaited<ReturnType<Signers['receipts']>>;
export interface SignedReceipt {
  receipt: Awaited<ReturnType<typeof signReceipt>>;
  headers: Record<string, string>;
}

/** A wallet proving its address without paying: a 402 with a challenge, then the signed answer verified. */
export interface WalletSignIn<D = never> {
  /** The wallet the signed `header` proves for `resourceUrl`; without it, a 402 with a fresh challenge. */
  signedIn(deps: D & { prisma: PrismaClient }, request: SignInRequest): Promise<string>;
  /** The account a wallet pays from (its tasks' account). */
  accountOf(wallet: string): string;
}

export interface SignInRequest {
  /** The request's signed message (its method's header), when it carries one. */
  header: string | undefined;
  resourceUrl: string;
  /** What signing in does, shown in the challenge. */
  statement: string;
}

/**
 * A way to pay: recognised by its payer's `kind`, and how it admits that payer's request. `D`: what admitting needs;
 * `S`: what settling needs (the services registered.ts makes, on the worker).
 */
export interface PaymentMethod<P extends { kind: string }, D, S = unknown> {
  kind: P['kind'];
  admission(deps: D, payer: P): PayerAdmission;
  /**
   * A method whose payer holds an API key (the balance): an `Authorization` header no other method's credential claims
   * is its own, authenticated as a key. One registered method at most.
   */
  keyed?: true;
  /**
   * Whether a request carries this method's credential, and where: in `Authorization` under a scheme of its own (MPP's
   * `Payment`), or in headers of its own (x402's `PAYMENT-SIGNATURE`). See PaymentRegistry.claimant for the order.
   */
  credential?(headers: IncomingHttpHeaders): CredentialPlace | undefined;
  /**
   * A method that pays a request carrying no API key: whether this server takes it, and the payer it makes of a request
   * for `resourceUrl` that carries its credential, or (the first offered) none at all, to be answered its 402.
   */
  keyless?: {
    offered(config: Config): boolean;
    payer(headers: IncomingHttpHeaders, resourceUrl: string): P;
  };
  /**
   * Its part of the 402 a request carrying no credential is answered (another method's offer in the body): the headers
   * it challenges with (MPP's `WWW-Authenticate: Payment …`), for the price asked at `resourceUrl`.
   */
  challenge?(config: Config, asked: { costMicros: bigint; resourceUrl: string }): Record<string, string> | undefined;
  /** Balances topped up with this method's payments (x402's top-ups). One registered method at most. */
  topUps?: TopUps<D, S>;
  /** A payer's wallet signs in without paying (x402's Sign-In-with-X). One registered method at most. */
  signIn?: WalletSignIn<D>;
  /**
   * Worker side: writes the task row `queued` with what this method holds for it (a balance's reservation, a
   * payment's row) in one transaction; a repeat finds them. Throws a refusal admission answers (no money, busy payer).
   */
  admit(prisma: PrismaClient, input: PaidAdmission): Promise<AdmittedTask>;
  /** Whether a task's workflow input was paid this way. */
  paid(paidBy: PaidBy): boolean;
  /** How the task's summary (the Temporal Web UI's list) says it was paid. */
  describe(paidBy: PaidBy): string;
  /** What this method moved for a task, as receipts to sign, oldest first; null where it moved nothing of the task's. */
  receiptFacts?(prisma: PrismaClient, task: ReceiptTask, resourceUrl: string): Promise<ReceiptFacts[] | null>;
  /** The headers a task's answer carries its payment's receipt in once settled (a receipt the payer's client reads). */
  receiptHeaders?(
    deps: { prisma: PrismaClient; signer: JWSSigner },
    task: { id: string; payment: TaskPaymentView },
    resourceUrl: string,
  ): Promise<Record<string, string> | undefined>;
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
  /** With more than one method that settles: whether this one holds the task's payment. */
  holds?(deps: S, taskId: string): Promise<boolean>;
}
