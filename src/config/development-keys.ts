// The published development keys (env.ts) are safe only on the local chain `npm start` runs: wherever a real chain is
// configured (or in production) anyone holding them could sweep deposits and payments, so each must be set instead.
import { type Chain, chains } from '../domain/values.ts';
import {
  developmentDepositXpub,
  developmentFacilitatorKey,
  developmentKeyedTaskIdSecret,
  developmentPayTo,
  developmentTaskIdSecret,
  type Env,
  x402EnabledOf,
} from './env.ts';

const rpcUrlVariable = (chain: Chain) => `${chain.toUpperCase() as Uppercase<Chain>}_RPC_URL` as const;

/** The RPC URL variables naming a chain other than the local one the runtime started (LOCAL_CHAIN_RPC_URL). */
export const realChainVariables = (env: Env): string[] =>
  chains
    .map(rpcUrlVariable)
    .filter((variable) => env[variable] !== undefined && env[variable] !== env.LOCAL_CHAIN_RPC_URL);

/** Each development key still in place where it must not be, as `VARIABLE: why, and what to set`; none locally. */
export function developmentKeyProblems(env: Env): string[] {
  const realChains = realChainVariables(env);
  if (env.NODE_ENV !== 'production' && realChains.length === 0) return [];
  const where = realChains.length > 0 ? `with a real chain (${realChains.join(', ')})` : 'in production';
  const x402 = x402EnabledOf(env);
  const ownFacilitator = x402 && !env.X402_FACILITATOR_URL;
  const problems: string[] = [];
  if (env.DEPOSIT_XPUB === developmentDepositXpub)
    problems.push(
      `DEPOSIT_XPUB: the development key (public test mnemonic) is not allowed ${where}; set your own xpub`,
    );
  if (env.TASK_ID_SECRET === developmentKeyedTaskIdSecret)
    problems.push(
      `TASK_ID_SECRET: the development secret is public, not allowed ${where} (anyone could compute output links); set a random secret of 32 characters or more`,
    );
  if (x402 && env.X402_PAY_TO === developmentPayTo)
    problems.push(
      `X402_PAY_TO: the development address is not allowed ${where}; set the address that receives x402 payments`,
    );
  if (ownFacilitator && env.X402_FACILITATOR_PRIVATE_KEY === developmentFacilitatorKey)
    problems.push(
      `X402_FACILITATOR_PRIVATE_KEY: the development key is public, not allowed ${where}; set the key of the account that pays settlement gas, or X402_FACILITATOR_URL`,
    );
  if (x402 && env.X402_TASK_ID_SECRET === developmentTaskIdSecret)
    problems.push(
      `X402_TASK_ID_SECRET: the development secret is public, not allowed ${where}; set a random secret of 32 characters or more`,
    );
  return problems;
}
