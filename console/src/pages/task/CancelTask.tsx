// Cancel, asked twice: the first press says what it does, the second cancels (POST /generations/{id}/cancel).
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { useState } from 'react';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';

export function CancelTask({ id }: { id: string }) {
  const { client } = useSession();
  const queryClient = useQueryClient();
  const [asked, setAsked] = useState(false);
  const cancel = useMutation({
    mutationFn: async () => dataOf(await client.POST('/generations/{id}/cancel', { params: { path: { id } } })),
    onSettled: () => queryClient.invalidateQueries({ queryKey: ['task', id] }),
  });
  return (
    <div className="actions">
      {!asked ? (
        <button type="button" className="secondary" onClick={() => setAsked(true)}>
          Cancel task
        </button>
      ) : (
        <>
          <span>Cancel it? What it reserved is refunded.</span>
          <button type="button" className="danger" disabled={cancel.isPending} onClick={() => cancel.mutate()}>
            {cancel.isPending ? 'Cancelling…' : 'Yes, cancel'}
          </button>
          <button type="button" className="secondary" onClick={() => setAsked(false)}>
            Keep it
          </button>
        </>
      )}
      {cancel.isError && (
        <p className="error" role="alert">
          {cancel.error.message}
        </p>
      )}
    </div>
  );
}
