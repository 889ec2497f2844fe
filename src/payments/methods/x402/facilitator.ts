// Verifies and settles x402 payments, in this process (our account pays the gas) or through a facilitator service,
// always against one of our own offers. Settles one payment at a time here; callers still key work on its identity.
import { x402Facilitator } from '@x402/core/facilitator';
import { HTTPFacilitatorClient, type FacilitatorConfig } from '@x402/core/http';
import {
  SettleError,
  VerifyError,
  type Network,
  type PaymentPayload,
  type PaymentRequirements,
  type SettleResponse,
  type VerifyResponse,
} from '@x402/core/types';
import { toFacilitatorEvmSigner } from '@x402/evm';
import { ExactEvmScheme } from '@x402/evm/exact/facilitator';
import { ExactEvmSchemeV1 } from '@x402/evm/exact/v1/facilitator';
import { UptoEvmScheme } from '@x402/evm/upto/facilitator';
import {
  type Address,
  createWalletClient,
  defineChain,
  http,
  isAddress,
  nonceManager,
  publicActions,
  type Chain,
  type Hex,
} from 'viem';
import { privateKeyToAccount } from 'viem/accounts';
import { base, mainnet, polygon } from 'viem/chains';
import { type ChainSettings, enabledChains } from '../../../chain/settings.ts';
import type { Config } from '../../../config/config.ts';
import { type AnyPaymentPayload, isV1Payload, paymentIdentity } from './payment-header.ts';
import { networkOf } from './requirements.ts';
import { type RequirementsV1, v1Identity } from './v1-payments.ts';
import { v1NetworkName } from './v1-networks.ts';

/** An offer as its payload's x402 version states it (v1: `maxAmountRequired`, a network name). */
export type AnyRequirements = PaymentRequirements | RequirementsV1;

export interface PaymentFacilitator {
  /** Whether the payload pays `requirement` (signature, recipient, amount, time window, balance, unused nonce). */
  verify(payload: AnyPaymentPayload, requirement: AnyRequirements): Promise<VerifyResponse>;
  /**
   * Verifies again, then moves the funds on chain. `success: false` with a reason when it did not; a throw when the
   * outcome is unknown (an RPC or facilitator failure after the transaction may have been sent).
   */
  settle(payload: AnyPaymentPayload, requirement: AnyRequirements): Promise<SettleResponse>;
  /** The networks it settles `upto` on, each with the address a payer's Permit2 witness must name. */
  uptoFacilitators(): Promise<ReadonlyMap<Network, Address>>;
}

export type X402Scheme = 'exact' | 'upto';

/** The facilitator for a scheme or network it does not serve: the x402 spec's reason codes. */
function unsupported(
  requirement: AnyRequirements,
  schemes: readonly X402Scheme[],
  networks: ReadonlySet<string>,
): string | undefined {
  if (!(schemes as readonly string[]).includes(requirement.scheme)) return 'unsupported_scheme';
  if (!networks.has(requirement.network)) return 'invalid_network';
  return undefined;
}

/** The one payment a payload is (network, asset, payer, nonce), whichever x402 version states it. */
function paymentKey(payload: AnyPaymentPayload, requirement: AnyRequirements): string | undefined {
  const identity = isV1Payload(payload) ? v1Identity(payload, () => requirement.asset) : paymentIdentity(payload);
  return identity ? `${identity.network}:${identity.asset}:${identity.payer}:${identity.nonce}` : undefined;
}

const knownChains: Record<number, Chain> = { [base.id]: base, [polygon.id]: polygon, [mainnet.id]: mainnet };

function viemChain(settings: ChainSettings): Chain {
  const known = settings.local ? undefined : knownChains[settings.chainId];
  const chain =
    known ??
    defineChain({
      id: settings.chainId,
      name: settings.local ? `local ${settings.chainId}` : settings.chain,
      nativeCurrency: { name: 'Ether', symbol: 'ETH', decimals: 18 },
      rpcUrls: { default: { http: [settings.rpcUrl] } },
    });
  return { ...chain, rpcUrls: { default: { http: [settings.rpcUrl] } } };
}

export interface LocalFacilitatorOptions {
  chains: ChainSettings[];
  /** `exact` (EIP-3009) always; `upto` (Permit2) where the chain has Permit2 and x402's upto proxy. */
  schemes: readonly X402Scheme[];
  /** The account that submits `transferWithAuthorization` and pays its gas, on every chain. */
  privateKey: Hex;
}

const sending = new Map<string, Promise<unknown>>();

/**
 * One transaction built and sent at a time per account. viem's nonce manager hands concurrent sends consecutive nonces;
 * one refused before it reaches the chain (its gas estimate: a spent authorization, a payer's funds gone) leaves its
 * nonce unused, and a send holding the next one would wait behind that gap, its settlement stuck.
 */
function oneSendAtATime<T>(account: string, send: () => Promise<T>): Promise<T> {
  const next = (sending.get(account) ?? Promise.resolve()).catch(() => undefined).then(send);
  sending.set(account, next);
  void next.finally(() => sending.get(account) === next && sending.delete(account)).catch(() => undefined);
  return next;
}

/**
 * x402's own facilitator in this process: the `exact` (EIP-3009) and `upto` (Permit2) schemes on each chain, its
 * network `eip155:<chainId>`, and v1's `exact` on a chain v1 can name. The account's nonces come from viem's nonce
 * manager, so concurrent settlements do not collide; their sends go one at a time (their receipts are awaited apart).
 */
export function createLocalFacilitator(options: LocalFacilitatorOptions): PaymentFacilitator & {
  /** The account paying the gas. */
  address: Hex;
  networks: Network[];
} {
  const account = privateKeyToAccount(options.privateKey, { nonceManager });
  const settling = new Map<string, Promise<unknown>>();
  /** One settlement per payment at a time: a second one waits, then meets the spent nonce before sending anything. */
  function oneAtATime<T>(payload: AnyPaymentPayload, requirement: AnyRequirements, settle: () => Promise<T>) {
    const key = paymentKey(payload, requirement);
    if (!key) return settle();
    const next = (settling.get(key) ?? Promise.resolve()).catch(() => undefined).then(settle);
    settling.set(key, next);
    void next.finally(() => settling.get(key) === next && settling.delete(key)).catch(() => undefined);
    return next;
  }
  const facilitator = new x402Facilitator();
  const networks = new Set<Network>();
  /** v1 names are a network's too: an offer in v1's form names its network so. */
  const served = new Set<string>();
  for (const settings of options.chains) {
    const network = networkOf(settings);
    if (networks.has(network)) throw new Error(`two chains with chain id ${settings.chainId}`);
    networks.add(network);
    const client = createWalletClient({
      account,
      chain: viemChain(settings),
      transport: http(settings.rpcUrl),
      cacheTime: 0,
      pollingInterval: settings.local ? 100 : 1_000,
    })
      .extend(publicActions)
      // toFacilitatorEvmSigner reads the signer's address from `address`, which a wallet client does not have; upto
      // compares it with the facilitator a payer's witness names.
      .extend((sender) => ({
        address: account.address,
        writeContract: ((request) =>
          oneSendAtATime(account.address, () => sender.writeContract(request))) as typeof sender.writeContract,
        sendTransaction: ((request) =>
          oneSendAtATime(account.address, () => sender.sendTransaction(request))) as typeof sender.sendTransaction,
      }));
    // Types only: viem 2.57 types verifyTypedData's parameter as a union (block hash/number/tag variants) that the
    // signer's plain parameter object is not assignable to; the call itself is the one toFacilitatorEvmSigner expects.
    const signer = toFacilitatorEvmSigner(client as unknown as Parameters<typeof toFacilitatorEvmSigner>[0]);
    // The schemes themselves rather than registerExactEvmScheme, which registers x402 v1 on all of its networks:
    // v1 only on this chain's own name (v1 names the chain id it signs for by the name).
    served.add(network);
    if (options.schemes.includes('exact')) facilitator.register(network, new ExactEvmScheme(signer));
    if (options.schemes.includes('upto')) facilitator.register(network, new UptoEvmScheme(signer));
    const v1Name = v1NetworkName(network);
    if (v1Name && options.schemes.includes('exact')) {
      served.add(v1Name);
      facilitator.registerV1(v1Name as Network, new ExactEvmSchemeV1(signer));
    }
  }
  // x402's facilitator routes a payload by its own x402Version; its types know v2's shapes only.
  const asV2 = (payload: AnyPaymentPayload, requirement: AnyRequirements) =>
    [payload as PaymentPayload, requirement as PaymentRequirements] as const;
  return {
    address: account.address,
    networks: [...networks],
    async verify(payload, requirement) {
      const reason = unsupported(requirement, options.schemes, served);
      if (reason) return { isValid: false, invalidReason: reason, payer: undefined };
      return facilitator.verify(...asV2(payload, requirement));
    },
    async settle(payload, requirement) {
      const reason = unsupported(requirement, options.schemes, served);
      if (reason) return { success: false, errorReason: reason, transaction: '', network: requirement.network };
      return oneAtATime(payload, requirement, () => facilitator.settle(...asV2(payload, requirement)));
    },
    async uptoFacilitators() {
      const served = options.schemes.includes('upto') ? [...networks] : [];
      return new Map(served.map((network) => [network, account.address]));
    },
  };
}

/**
 * A facilitator service (`POST <url>/verify`, `POST <url>/settle`), through x402's HTTP client. A refusal it answers
 * with an error status (and a verify/settle body) comes back as a response, like the local facilitator's.
 */
export function createRemoteFacilitator(
  url: string,
  options: Omit<FacilitatorConfig, 'url'> = {},
): PaymentFacilitator & { url: string } {
  const client = new HTTPFacilitatorClient({ ...options, url });
  let supported: Promise<ReadonlyMap<Network, Address>> | undefined;
  return {
    url: client.url,
    async verify(payload, requirement) {
      try {
        return await client.verify(payload as PaymentPayload, requirement as PaymentRequirements);
      } catch (error) {
        if (!(error instanceof VerifyError)) throw error;
        return {
          isValid: false,
          invalidReason: error.invalidReason,
          invalidMessage: error.invalidMessage,
          payer: error.payer,
        };
      }
    },
    async settle(payload, requirement) {
      try {
        return await client.settle(payload as PaymentPayload, requirement as PaymentRequirements);
      } catch (error) {
        if (!(error instanceof SettleError)) throw error;
        return {
          success: false,
          errorReason: error.errorReason,
          errorMessage: error.errorMessage,
          payer: error.payer,
          transaction: error.transaction ?? '',
          network: error.network ?? requirement.network,
        };
      }
    },
    /** From the service's `/supported` kinds (asked once; asked again after a failure). */
    uptoFacilitators() {
      supported ??= client.getSupported().then(
        ({ kinds }) =>
          new Map(
            kinds.flatMap(({ x402Version, scheme, network, extra }) => {
              const address = extra?.facilitatorAddress;
              const usable =
                x402Version === 2 && scheme === 'upto' && typeof address === 'string' && isAddress(address);
              return usable ? [[network, address as Address] as const] : [];
            }),
          ),
        (error: unknown) => {
          supported = undefined;
          throw error;
        },
      );
      return supported;
    },
  };
}

/** The configured facilitator, made on first use: an external one (X402_FACILITATOR_URL) or this process's own. */
export function configuredFacilitator(config: Pick<Config, 'x402' | 'chains'>): () => PaymentFacilitator {
  let facilitator: PaymentFacilitator | undefined;
  return () =>
    (facilitator ??= config.x402.facilitatorUrl
      ? createRemoteFacilitator(config.x402.facilitatorUrl)
      : createLocalFacilitator({
          chains: enabledChains(config.chains),
          schemes: config.x402.schemes,
          privateKey: config.x402.facilitatorPrivateKey,
        }));
}
