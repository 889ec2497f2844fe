// Claim a deposit by its transaction hash (POST /agents/deposit): credited once it has its confirmations, or told how
// many it still needs. The deposit watcher credits it without a claim too; a claim is only faster.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { dataOf } from '../../api/answer';
import { invalidatePath } from '../../api/query-keys';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { formatUsd } from '../../format';

type Chain = components['schemas']['Chain'];

function useClaim() {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async (body: { chain: Chain; tx_hash: string }) =>
      dataOf(await client.POST('/agents/deposit', { body })),
    onSettled: () => invalidatePath(queryClient, '/agents/balance'),
  });
}

export function ClaimDeposit({ chains }: { chains: Chain[] }) {
  const id = useId();
  const [chain, setChain] = useState<Chain>(chains[0]!);
  const [hash, setHash] = useState('');
  const claim = useClaim();
  const answer = claim.data;
  return (
    <form
      className="card claim"
      aria-labelledby={`${id}-heading`}
      onSubmit={(event) => {
        event.preventDefault();
        claim.mutate({ chain, tx_hash: hash.trim() });
      }}
    >
      <h2 id={`${id}-heading`}>Claim a deposit</h2>
      <div className="options">
        <div className="field">
          <label htmlFor={`${id}-chain`}>Chain</label>
          <select id={`${id}-chain`} value={chain} onChange={(event) => setChain(event.target.value as Chain)}>
            {chains.map((each) => (
              <option key={each}>{each}</option>
            ))}
          </select>
        </div>
        <div className="field claim-hash">
          <label htmlFor={`${id}-hash`}>Transaction hash</label>
          <input
            id={`${id}-hash`}
            type="text"
            required
            spellCheck={false}
            pattern="0x[0-9a-fA-F]{64}"
            title="0x and 64 hexadecimal digits"
            value={hash}
            onChange={(event) => setHash(event.target.value)}
          />
        </div>
        <button type="submit" disabled={claim.isPending}>
          {claim.isPending ? 'Claiming…' : 'Claim'}
        </button>
      </div>
      <div role="status" aria-live="polite">
        {answer && (
          <p className={answer.success ? 'ok' : 'muted'}>
            {answer.success
              ? `${formatUsd(answer.amount_credited)} credited; the balance is ${formatUsd(answer.new_balance)}.`
              : (answer.message ?? 'Not credited yet.')}
          </p>
        )}
      </div>
      {claim.isError && (
        <p className="error" role="alert">
          {claim.error.message}
        </p>
      )}
    </form>
  );
}
