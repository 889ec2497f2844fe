// Try a model: pick it from the catalog (by type), fill in the form its capabilities make, see the quote, Generate,
// watch it run and preview the result; or copy the same request as curl or as an MCP tools/call.
import { useMutation } from '@tanstack/react-query';
import { useId, useState } from 'react';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';
import { useCurrentKey } from '../../api/use-current-key';
import { type Model, typesOf, useModels } from '../../catalog/use-models';
import { CopyRequest } from './CopyRequest';
import { type Draft, draftFor, missing, quoteOf, requestOf } from './draft';
import { inputsOf } from './inputs';
import { MediaInput } from './MediaInput';
import { ModelOptions } from './ModelOptions';
import { PlaygroundResult } from './PlaygroundResult';
import { QuoteLine, quoteRefusal, useQuote } from './QuoteLine';

function useGenerate(onCreated: (id: string) => void) {
  const { client } = useSession();
  return useMutation({
    mutationFn: async (draft: Draft) => {
      // One key per press: a retried request (a dropped connection) is the same task, charged once.
      const headers = { 'Idempotency-Key': crypto.randomUUID() };
      return dataOf(await client.POST('/generations', { body: requestOf(draft), params: { header: headers } }));
    },
    onSuccess: (created) => onCreated(created.id),
  });
}

function Form({ models }: { models: Model[] }) {
  const id = useId();
  const [draft, setDraft] = useState(() => draftFor(models.find((model) => model.available) ?? models[0]!));
  const [taskId, setTaskId] = useState<string>();
  const model = models.find((each) => each.id === draft.model)!;
  const inputs = inputsOf(draft.type);
  const request = requestOf(draft);
  const quote = useQuote(quoteOf(request));
  const generate = useGenerate(setTaskId);
  const gaps = missing(draft);
  const mayGenerate = useCurrentKey().data?.scopes.includes('generate') ?? true;
  const refusal = mayGenerate ? quoteRefusal(quote.data) : 'This key has no `generate` scope: it cannot start tasks.';

  const chooseModel = (next: Model | undefined) => next && setDraft(draftFor(next, draft.prompt));
  return (
    <div className="playground">
      <form
        className="card playground-form"
        aria-label="Request"
        onSubmit={(event) => {
          event.preventDefault();
          generate.mutate(draft);
        }}
      >
        <div className="options">
          <div className="field">
            <label htmlFor={`${id}-type`}>Type</label>
            <select
              id={`${id}-type`}
              value={draft.type}
              onChange={(event) =>
                chooseModel(models.find((each) => each.type === event.target.value && each.available))
              }
            >
              {typesOf(models.filter((each) => each.available)).map((type) => (
                <option key={type}>{type}</option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor={`${id}-model`}>Model</label>
            <select
              id={`${id}-model`}
              value={draft.model}
              onChange={(event) => chooseModel(models.find((each) => each.id === event.target.value))}
            >
              {models
                .filter((each) => each.type === draft.type)
                .map((each) => (
                  <option key={each.id} value={each.id} disabled={!each.available}>
                    {each.available ? each.id : `${each.id} (not configured)`}
                  </option>
                ))}
            </select>
          </div>
        </div>
        <p className="muted">{model.description}</p>
        {inputs.prompt !== 'none' && (
          <div className="field">
            <label htmlFor={`${id}-prompt`}>Prompt{inputs.prompt === 'optional' && ' (optional)'}</label>
            <textarea
              id={`${id}-prompt`}
              rows={4}
              value={draft.prompt}
              onChange={(event) => setDraft({ ...draft, prompt: event.target.value })}
            />
          </div>
        )}
        {inputs.media.map((media) => (
          <MediaInput
            key={media.field}
            label={media.label}
            accept={media.accept}
            value={draft.media[media.field] ?? ''}
            onChange={(url) => setDraft({ ...draft, media: { ...draft.media, [media.field]: url } })}
          />
        ))}
        <ModelOptions model={model} draft={draft} onChange={setDraft} />
        <QuoteLine quote={quote.data} error={mayGenerate ? quote.error : null} />
        {!mayGenerate && <p className="error">{refusal}</p>}
        {gaps.length > 0 && <p className="muted">To fill in: {gaps.join(', ')}.</p>}
        <div className="actions">
          <button type="button" className="secondary" disabled={quote.isFetching} onClick={() => void quote.refetch()}>
            {quote.isFetching ? 'Quoting…' : 'Get quote'}
          </button>
          <button type="submit" disabled={gaps.length > 0 || !!refusal || generate.isPending}>
            {generate.isPending ? 'Starting…' : 'Generate'}
          </button>
          <CopyRequest request={request} />
        </div>
        {generate.isError && (
          <p className="error" role="alert">
            {generate.error.message}
          </p>
        )}
      </form>
      {taskId && <PlaygroundResult key={taskId} id={taskId} />}
    </div>
  );
}

export function Playground() {
  const models = useModels();
  return (
    <>
      <h1>Playground</h1>
      {models.isPending && <p className="muted">Loading the catalog…</p>}
      {models.isError && <p className="error">{models.error.message}</p>}
      {models.data && models.data.length > 0 && <Form models={models.data} />}
    </>
  );
}
