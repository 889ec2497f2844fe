// Available and reserved: an agent's from GET /agents/balance, a developer's from GET /account/balance.
import { useSession } from '../../api/session';
import { formatUsd } from '../../format';
import { QueryStatus } from '../../ui/Loading';
import { Section } from '../../ui/Section';

function useBalance() {
  const { api, kind } = useSession();
  const agent = api.useQuery('get', '/agents/balance', undefined, { enabled: kind === 'agent' });
  const developer = api.useQuery('get', '/account/balance', undefined, { enabled: kind === 'developer' });
  return kind === 'agent' ? agent : developer;
}

export function Balance() {
  const balance = useBalance();
  return (
    <Section title="Balance">
      <QueryStatus query={balance} />
      {balance.data && (
        <dl className="figures">
          <div>
            <dt>Available</dt>
            <dd className="figure">{formatUsd(balance.data.balance_available)}</dd>
          </div>
          <div>
            <dt>Reserved</dt>
            <dd>{formatUsd(balance.data.balance_reserved)}</dd>
          </div>
        </dl>
      )}
    </Section>
  );
}
