// The keys this session's key manages (GET /keys), each with its budget window as a bar; a form to make one, whose
// secret is shown once; Revoke. A key without the `keys` scope sees its own window (GET /keys/current) and why.
import { useState } from 'react';
import { errorMessage } from '../../api/client';
import { useCurrentKey } from '../../api/use-current-key';
import { useManagedKeys } from '../../api/use-managed-keys';
import { CreateKeyForm } from './CreateKeyForm';
import { KeyCard } from './KeyCard';
import { NewKeySecret } from './NewKeySecret';
import { ErrorLine } from '../../ui/ErrorLine';
import { Loading } from '../../ui/Loading';
import { Section } from '../../ui/Section';
import './keys.css';

function useKeys() {
  return { current: useCurrentKey(), managed: useManagedKeys() };
}

export function Keys() {
  const { current, managed } = useKeys();
  const [secret, setSecret] = useState<string>();
  const currentId = current.data?.id;
  const mayManage = current.data?.scopes.includes('keys');
  return (
    <>
      <h1>Keys</h1>
      {secret && <NewKeySecret secret={secret} onDone={() => setSecret(undefined)} />}
      <ErrorLine error={current.error} />
      <Section title={mayManage ? 'Your keys' : 'This key'}>
        {managed.isPending && current.isPending && <Loading />}
        {managed.isError && current.data && (
          <p className="muted">This key has no `keys` scope: it sees only itself. {errorMessage(managed.error)}</p>
        )}
        <ul className="key-list">
          {(managed.data ?? (current.data ? [current.data] : [])).map((key) => (
            <KeyCard key={key.id} keyWindow={key} isCurrent={key.id === currentId} />
          ))}
        </ul>
      </Section>
      {mayManage && current.data && <CreateKeyForm scopes={current.data.scopes} onCreated={setSecret} />}
    </>
  );
}
