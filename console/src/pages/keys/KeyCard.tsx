// One key as the list shows it: name, prefix, whether it is an OAuth grant, scopes, policy, dates, its budget bar, and
// Revoke.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { dataOf } from '../../api/answer';
import { invalidatePath } from '../../api/query-keys';
import type { components } from '../../api/schema';
import { useSession } from '../../api/session';
import { formatTime, formatUsd } from '../../format';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ErrorLine } from '../../ui/ErrorLine';
import { BudgetBar } from './BudgetBar';

type KeyWindow = components['schemas']['KeyWithWindow'];

function policyText(policy: KeyWindow['policy']): string[] {
  if (!policy) return ['No limits'];
  return [
    policy.models && `Models: ${policy.models.join(', ')}`,
    policy.types && `Types: ${policy.types.join(', ')}`,
    policy.max_cost_per_task !== undefined && `At most ${formatUsd(policy.max_cost_per_task)} a task`,
    policy.rate_limit_per_minute !== undefined && `${policy.rate_limit_per_minute} tasks a minute`,
  ].filter((line): line is string => !!line);
}

function useRevoke(id: string) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  return useMutation({
    mutationFn: async () => dataOf(await client.DELETE('/keys/{id}', { params: { path: { id } } })),
    onSettled: () => invalidatePath(queryClient, '/keys'),
  });
}

export function KeyCard({ keyWindow, isCurrent }: { keyWindow: KeyWindow; isCurrent: boolean }) {
  const revoke = useRevoke(keyWindow.id);
  const revoked = keyWindow.revoked_at !== null;
  return (
    <li className={revoked ? 'key revoked' : 'key'} aria-label={keyWindow.name}>
      <div className="key-head">
        <h3>{keyWindow.name}</h3>
        <span className="mono muted">{keyWindow.prefix}…</span>
        {keyWindow.oauth_client_id && (
          <span className="badge oauth" title={`Granted to the OAuth client ${keyWindow.oauth_client_id}`}>
            OAuth grant
          </span>
        )}
        {isCurrent && <span className="badge">this session</span>}
        {revoked && <span className="badge">revoked {formatTime(keyWindow.revoked_at!)}</span>}
      </div>
      <p className="muted">
        {keyWindow.scopes.join(' · ')} · {policyText(keyWindow.policy).join(' · ')}
      </p>
      <p className="muted">
        Created {formatTime(keyWindow.created_at)}
        {keyWindow.last_used_at && ` · last used ${formatTime(keyWindow.last_used_at)}`}
        {keyWindow.expires_at && ` · expires ${formatTime(keyWindow.expires_at)}`}
      </p>
      <BudgetBar keyWindow={keyWindow} />
      {!revoked && !isCurrent && (
        <ConfirmButton
          label="Revoke"
          question="Revoke it, and every key it made?"
          confirm="Yes, revoke"
          pending="Revoking…"
          isPending={revoke.isPending}
          onConfirm={() => revoke.mutate()}
        />
      )}
      <ErrorLine error={revoke.error} />
    </li>
  );
}
