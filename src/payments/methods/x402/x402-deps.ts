// What x402's parts of the method need from the process (the facilitator only where payments are taken).
import type { X402Deps } from './admission.ts';

/** What admitting an x402 payment needs; the facilitator only where payments are taken (not genctl's replays). */
export interface X402MethodDeps {
  config: X402Deps['config'];
  facilitator?: X402Deps['facilitator'];
  signers?: X402Deps['signers'];
}

export function verifierOf(deps: X402MethodDeps): X402Deps {
  if (!deps.facilitator) throw new Error('x402 admission needs a payment facilitator');
  return { config: deps.config, facilitator: deps.facilitator, signers: deps.signers };
}
