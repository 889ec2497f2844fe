// The ways to pay, registered as x402's packages register their schemes (`register(a).register(b)`): everything that
// dispatches over payment methods asks a registry, and nothing outside a method's folder names one. Built once per
// process in registered.ts; the app and the worker take it as a dependency, so a test may register a method of its own.
import type { IncomingHttpHeaders } from 'node:http';
import type { Config } from '../../config/config.ts';
import type { PrismaClient } from '../../db/prisma.ts';
import { DomainError } from '../../domain/errors.ts';
import type { TaskPaymentView } from '../../generations/task-view.ts';
import type { HeldPaymentRules } from '../../generations/tasks.ts';
import type { JWSSigner, ReceiptFacts } from '../receipts/receipts.ts';
import type {
  PaidAdmission,
  PaidBy,
  PayerAdmission,
  PaymentMethod,
  ReceiptTask,
  TopUps,
  WalletSignIn,
} from './payment-method.ts';

// A registry holds methods of any payer, deps and services: each is called only with what it was registered for.
// eslint-disable-next-line @typescript-eslint/no-explicit-any
type AnyMethod = PaymentMethod<{ kind: string }, any, any>;

/** Who a request's credential says pays: a method's payer, the key holder's (authenticated as a key), or nobody yet. */
export type Claimant = { by: 'method'; method: AnyMethod } | { by: 'key' } | { by: 'none' };

export class PaymentRegistry<P extends { kind: string } = never> {
  readonly #methods: AnyMethod[] = [];
  /** Payers made of a request carrying no credential: their 402 carries every offered method's challenge. */
  readonly #challenged = new WeakMap<object, { config: Config; resourceUrl: string }>();

  /** Adds a method; its kind must be new. Returns the registry, widened to the method's payer. */
  register<Q extends { kind: string }, D, S>(method: PaymentMethod<Q, D, S>): PaymentRegistry<P | Q> {
    if (this.#methods.some((each) => each.kind === method.kind))
      throw new Error(`a payment method of kind ${method.kind} is registered already`);
    if (method.keyed && this.#methods.some((each) => each.keyed))
      throw new Error('one payment method at most pays for API keys');
    this.#methods.push(method as AnyMethod);
    return this as unknown as PaymentRegistry<P | Q>;
  }

  get methods(): readonly AnyMethod[] {
    return this.#methods;
  }

  /** The one method offering a capability (top-ups, sign-in) that this server takes, if any. */
  #onlyOne<K extends 'topUps' | 'signIn'>(capability: K) {
    const offering = this.#methods.filter((method) => method[capability] !== undefined);
    if (offering.length > 1) throw new Error(`more than one payment method offers ${capability}`);
    return offering[0];
  }

  /**
   * Who pays for a request, by the credential it carries: a method's own scheme of `Authorization` first, then any
   * other `Authorization` (an API key, the keyed method's), then a method's own headers; else nobody yet (a 402).
   */
  claimant(headers: IncomingHttpHeaders): Claimant {
    const found = this.#methods.map((method) => ({ method, place: method.credential?.(headers) }));
    const inAuthorization = found.find((each) => each.place === 'authorization');
    if (inAuthorization) return { by: 'method', method: inAuthorization.method };
    if (headers.authorization) return { by: 'key' };
    const inOwnHeaders = found.find((each) => each.place === 'own-headers');
    return inOwnHeaders ? { by: 'method', method: inOwnHeaders.method } : { by: 'none' };
  }

  /** The methods that pay a request without an API key on this server. */
  keylessOffered = (config: Config): AnyMethod[] =>
    this.#methods.filter((method) => method.keyless?.offered(config) ?? false);

  /** Whether this server takes a payment from a caller without an API key. */
  takesKeyless = (config: Config): boolean => this.keylessOffered(config).length > 0;

  /** Whether the request is paid (or to be paid) by a method other than an API key's, where one is offered. */
  paysWithoutKey(config: Config, headers: IncomingHttpHeaders): boolean {
    const claimant = this.claimant(headers);
    if (claimant.by === 'key') return false;
    if (claimant.by === 'none') return this.takesKeyless(config);
    return claimant.method.keyless?.offered(config) ?? false;
  }

  /** Whether the request carries a credential of a method that pays without a key (it means to pay for this request). */
  carriesPayment = (headers: IncomingHttpHeaders): boolean => this.claimant(headers).by === 'method';

  /**
   * The payer of a request without an API key for `resourceUrl`: the method its credential names, or, carrying none,
   * the first offered (its admission answers the 402, to which the others add their challenges).
   */
  keylessPayer(config: Config, headers: IncomingHttpHeaders, resourceUrl: string): P {
    const claimant = this.claimant(headers);
    const method = claimant.by === 'method' ? claimant.method : this.keylessOffered(config)[0];
    if (!method?.keyless) throw new Error('no payment method takes this request without an API key');
    const payer = method.keyless.payer(headers, resourceUrl) as P;
    if (claimant.by === 'none') this.#challenged.set(payer, { config, resourceUrl });
    return payer;
  }

  #methodOf(payer: { kind: string }): AnyMethod {
    const method = this.#methods.find((candidate) => candidate.kind === payer.kind);
    if (!method) throw new Error(`no payment method takes a payer of kind ${payer.kind}`);
    return method;
  }

  /** The payer's request as its method admits it; a payer that carried no credential is answered every challenge. */
  admission(deps: unknown, payer: P): PayerAdmission {
    const admission = this.#methodOf(payer).admission(deps, payer);
    const challenged = this.#challenged.get(payer);
    if (!challenged) return admission;
    const challenge = (costMicros: bigint) => (error: unknown) => {
      throw this.#withChallenges(error, payer.kind, { ...challenged, costMicros });
    };
    const { checkBeforeMeasuring } = admission;
    return {
      ...admission,
      authorize: (priced, admittedEarlier) =>
        admission.authorize(priced, admittedEarlier).catch(challenge(priced.costMicros)),
      ...(checkBeforeMeasuring && {
        checkBeforeMeasuring: (declared, leastMicros) =>
          checkBeforeMeasuring(declared, leastMicros).catch(challenge(leastMicros)),
      }),
    };
  }

  /** A 402 with the other offered methods' challenges added to its headers. */
  #withChallenges(error: unknown, kind: string, asked: { config: Config; resourceUrl: string; costMicros: bigint }) {
    if (!(error instanceof DomainError) || error.code !== 'payment_required') return error;
    for (const method of this.keylessOffered(asked.config))
      if (method.kind !== kind) Object.assign(error.headers, method.challenge?.(asked.config, asked) ?? {});
    return error;
  }

  #methodThatPaid(paidBy: PaidBy): AnyMethod {
    const paying = this.#methods.filter((candidate) => candidate.paid(paidBy));
    if (paying.length !== 1) throw new Error(`${paying.length} payment methods claim to have paid this task`);
    return paying[0]!;
  }

  /** The method a task's workflow input was paid with, by its `kind` (the task's search attribute). */
  kindOf = (paidBy: PaidBy): P['kind'] => this.#methodThatPaid(paidBy).kind;

  /** Worker side: the task row written `queued` by the method its input was paid with (see PaymentMethod.admit). */
  admitTask = (prisma: PrismaClient, input: PaidAdmission) => this.#methodThatPaid(input).admit(prisma, input);

  /** How the task's summary says it was paid. */
  describe = (paidBy: PaidBy): string => this.#methodThatPaid(paidBy).describe(paidBy);

  /** What the start-up banner says of the ways to pay. */
  bannerLines = (config: Config): string[] => this.#methods.flatMap((method) => method.bannerLines?.(config) ?? []);

  /**
   * What ending a task does with a payment held beside it (its row is the task's `payment`): the task's row holds one
   * kind (x402's), so one registered method at most gives the rules.
   */
  get heldPaymentRules(): HeldPaymentRules {
    const holding = this.#methods.filter((method) => method.held !== undefined);
    if (holding.length > 1) throw new Error('the task row holds one kind of payment: one method at most holds one');
    return holding[0]?.held ?? noHeldPayment;
  }

  /**
   * Worker side, once the task delivered: settles the payment its input carries, by the method that holds it (the
   * workflow asks only for a task whose input carries one). Of several that settle, each is asked whether it holds it.
   */
  async settle(deps: unknown, task: { taskId: string; usedMicros: bigint }): Promise<unknown> {
    const settling = this.#methods.filter((method) => method.settle !== undefined);
    for (const method of settling)
      if (settling.length === 1 || (await method.holds?.(deps, task.taskId))) return method.settle!(deps, task);
    throw new Error(`no payment method holds a payment of task ${task.taskId}`);
  }

  /**
   * What a task moved, as receipts to sign, oldest first; none while nothing has. A method that paid without a key
   * answers for its task first (its payer's account may keep ledger entries too); the keyed method answers for the rest.
   */
  async receiptFacts(prisma: PrismaClient, task: ReceiptTask, resourceUrl: string): Promise<ReceiptFacts[]> {
    const keyedLast = [...this.#methods].sort((a, b) => Number(a.keyed ?? false) - Number(b.keyed ?? false));
    for (const method of keyedLast) {
      const facts = await method.receiptFacts?.(prisma, task, resourceUrl);
      if (facts) return facts;
    }
    return [];
  }

  /** The receipt headers of a task's payment, where its method answers with one (x402 once settled). */
  async receiptHeaders(
    deps: { prisma: PrismaClient; signer: JWSSigner },
    task: { id: string; payment: TaskPaymentView },
    resourceUrl: string,
  ): Promise<Record<string, string> | undefined> {
    for (const method of this.#methods) {
      const headers = await method.receiptHeaders?.(deps, task, resourceUrl);
      if (headers) return headers;
    }
    return undefined;
  }

  /** MCP: the HTTP headers a tool call's `_meta` carries its payment as, by whichever method's transport it follows. */
  mcpPaymentHeaders = (meta: Record<string, unknown> | undefined): Record<string, string> =>
    Object.assign({}, ...this.#methods.map((method) => method.mcpPaymentHeaders?.(meta) ?? {})) as Record<
      string,
      string
    >;

  /** MCP: the tool result's `_meta` for a payment receipt the answer's headers carry, where one does. */
  mcpReceiptMeta = (headers: Record<string, string>): Record<string, unknown> | undefined =>
    this.#methods.reduce<Record<string, unknown> | undefined>(
      (found, method) => found ?? method.mcpReceiptMeta?.(headers),
      undefined,
    );

  /** Top-ups, by the method that offers them, where this server takes its payments (`config`) or at all. */
  topUps(config?: Config): TopUps<unknown, unknown> | undefined {
    const topUps = this.#onlyOne('topUps')?.topUps as TopUps<unknown, unknown> | undefined;
    return config && topUps && !topUps.offered(config) ? undefined : topUps;
  }

  /** A wallet's sign-in, by the method that offers one. */
  signIn(): WalletSignIn<unknown> | undefined {
    return this.#onlyOne('signIn')?.signIn as WalletSignIn<unknown> | undefined;
  }
}

const noHeldPayment: HeldPaymentRules = {
  charged: (_tx, task) => Promise.reject(new Error(`task ${task.id} holds a payment no registered method knows`)),
  abandoned: (_tx, task) => Promise.reject(new Error(`task ${task.id} holds a payment no registered method knows`)),
};
