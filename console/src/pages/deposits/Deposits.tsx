// An agent's deposits: each chain's address (copy, QR code), a claim by transaction hash, and the recent deposits
// with their state (GET /agents/balance).
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { formatTime, formatUsd } from '../../format';
import { ClaimDeposit } from './ClaimDeposit';
import { DepositAddress } from './DepositAddress';
import { QueryStatus } from '../../ui/Loading';
import { Section } from '../../ui/Section';
import './deposits.css';

type Chain = components['schemas']['Chain'];
type Deposit = NonNullable<components['schemas']['AgentBalanceResponse']['recent_deposits']>[number];

/** "2 of 3" while confirming; a dash where the count is not known (rejected, or the chain did not answer). */
const confirmationsText = ({ confirmations, confirmations_required }: Deposit) =>
  confirmations === null || confirmations === undefined
    ? '—'
    : confirmations_required
      ? `${confirmations} of ${confirmations_required}`
      : String(confirmations);
const claimable: Chain[] = ['base', 'polygon', 'ethereum'];

function useAgentBalance() {
  return useSession().api.useQuery('get', '/agents/balance', undefined, {
    // A deposit confirming gains a confirmation with each block: counted again every few seconds until credited.
    refetchInterval: (query) =>
      query.state.data?.recent_deposits?.some((deposit) => deposit.status === 'pending') ? 5_000 : false,
  });
}

export function Deposits() {
  const balance = useAgentBalance();
  const data = balance.data;
  const addresses = Object.entries(data?.deposit_addresses ?? {});
  const chains = claimable.filter((chain) => data?.deposit_addresses[chain]);
  return (
    <>
      <h1>Deposits</h1>
      <QueryStatus query={balance} />
      {data && (
        <>
          <Section title="Deposit addresses">
            {addresses.length === 0 && <p className="muted">This gateway takes no on-chain deposits.</p>}
            <ul className="deposit-addresses">
              {addresses.map(([chain, address]) => (
                <DepositAddress key={chain} chain={chain} address={address} asset={data.asset} />
              ))}
            </ul>
          </Section>
          {chains.length > 0 && <ClaimDeposit chains={chains} />}
          <Section title="Recent deposits">
            {!data.recent_deposits?.length ? (
              <p className="muted">No deposits yet.</p>
            ) : (
              <div className="table-scroll">
                <table>
                  <thead>
                    <tr>
                      <th scope="col">When</th>
                      <th scope="col">Chain</th>
                      <th scope="col">Amount</th>
                      <th scope="col">State</th>
                      <th scope="col">Confirmations</th>
                      <th scope="col">Transaction</th>
                    </tr>
                  </thead>
                  <tbody>
                    {data.recent_deposits.map((deposit) => (
                      <tr key={deposit.id}>
                        <td>{formatTime(deposit.created_at ?? undefined)}</td>
                        <td>{deposit.chain}</td>
                        <td>{formatUsd(deposit.amount_usd)}</td>
                        <td>{deposit.status}</td>
                        <td>{confirmationsText(deposit)}</td>
                        <td className="mono">{deposit.tx_hash}</td>
                      </tr>
                    ))}
                  </tbody>
                </table>
              </div>
            )}
          </Section>
        </>
      )}
    </>
  );
}
