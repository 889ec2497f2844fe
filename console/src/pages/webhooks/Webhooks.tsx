// The account's webhook and its delivery log. Changing the webhook and reading the log need the `keys` scope.
import { useQuery } from '@tanstack/react-query';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';
import { DeliveryLog } from './DeliveryLog';
import { WebhookSettings } from './WebhookSettings';

export function Webhooks() {
  const { client } = useSession();
  const current = useQuery({
    queryKey: ['keys', 'current'],
    queryFn: async () => dataOf(await client.GET('/keys/current')),
  });
  const mayManage = current.data?.scopes.includes('keys') ?? false;
  return (
    <>
      <h1>Webhooks</h1>
      {current.data && <WebhookSettings mayManage={mayManage} />}
      {mayManage && <DeliveryLog />}
    </>
  );
}
