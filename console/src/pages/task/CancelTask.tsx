// Cancel, asked twice (POST /generations/{id}/cancel); what the task reserved goes back to the balance.
import { useMutation, useQueryClient } from '@tanstack/react-query';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';
import { taskParams } from '../../tasks/use-task';
import { ConfirmButton } from '../../ui/ConfirmButton';
import { ErrorLine } from '../../ui/ErrorLine';

export function CancelTask({ id }: { id: string }) {
  const { client, api } = useSession();
  const queryClient = useQueryClient();
  const cancel = useMutation({
    mutationFn: async () => dataOf(await client.POST('/generations/{id}/cancel', taskParams(id))),
    onSettled: () =>
      queryClient.invalidateQueries({
        queryKey: api.queryOptions('get', '/generations/{id}', taskParams(id)).queryKey,
      }),
  });
  return (
    <div className="actions">
      <ConfirmButton
        label="Cancel task"
        question="Cancel it? What it reserved is refunded."
        confirm="Yes, cancel"
        pending="Cancelling…"
        isPending={cancel.isPending}
        onConfirm={() => cancel.mutate()}
      />
      <ErrorLine error={cancel.error} />
    </div>
  );
}
