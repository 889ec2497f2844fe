// Claim a deposit by its transaction hash (POST /agents/deposit): credited once it has its confirmations, or told how
// many it still needs. The deposit watcher credits it without a claim too; a claim is only faster.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { dataOf } from '../../api/answer';
import { invalidatePath } from '../../api/query-keys';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { formatUsd } from '../../format';
import { ErrorLine } from '../../ui/ErrorLine';
import { Field } from '../../ui/Field';
import { FormSection } from '../../ui/Section';

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
  const [chain, setChain] = useState<Chain>(chains[0]!);
  const [hash, setHash] = useState('');
  const claim = useClaim();
  const answer = claim.data;
  return (
    <FormSection
      title="Claim a deposit"
      className="claim"
      onSubmit={() => claim.mutate({ chain, tx_hash: hash.trim() })}
    >
      <div className="options">
        <Field label="Chain">
          {(control) => (
            <select {...control} value={chain} onChange={(event) => setChain(event.target.value as Chain)}>
              {chains.map((each) => (
                <option key={each}>{each}</option>
              ))}
            </select>
          )}
        </Field>
        <Field label="Transaction hash" className="claim-hash">
          {(control) => (
            <input
              {...control}
              type="text"
              required
              spellCheck={false}
              pattern="0x[0-9a-fA-F]{64}"
              title="0x and 64 hexadecimal digits"
              value={hash}
              onChange={(event) => setHash(event.target.value)}
            />
          )}
        </Field>
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
      <ErrorLine error={claim.error} />
    </FormSection>
  );
}
