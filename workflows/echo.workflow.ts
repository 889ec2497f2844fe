// The lightest possible update-with-start: the update answers at once and the workflow ends. The benchmark
// measures it as the reference for what the server itself allows; operators can use it as a smoke test.
import { allHandlersFinished, condition, defineUpdate, setHandler } from '@temporalio/workflow';

export const echoUpdate = defineUpdate<string, [string]>('echo');

export async function echoWorkflow(): Promise<void> {
  let answered = false;
  setHandler(echoUpdate, (text) => {
    answered = true;
    return text;
  });
  await condition(() => answered);
  await condition(allHandlersFinished);
}
