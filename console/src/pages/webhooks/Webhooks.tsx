// The account's webhook and its delivery log. Changing the webhook and reading the log need the `keys` scope.
import { useCurrentKey } from '../../api/use-current-key';
import { DeliveryLog } from './DeliveryLog';
import { WebhookSettings } from './WebhookSettings';
import './webhooks.css';

export function Webhooks() {
  const current = useCurrentKey();
  const mayManage = current.data?.scopes.includes('keys') ?? false;
  return (
    <>
      <h1>Webhooks</h1>
      {current.data && <WebhookSettings mayManage={mayManage} />}
      {mayManage && <DeliveryLog />}
    </>
  );
}
