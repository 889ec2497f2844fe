// Try a model: pick it from the catalog (by type), fill in the form its capabilities make, see the quote, Generate,
// watch it run and preview the result; or copy the same request as curl or as an MCP tools/call.
import { useMutation } from '@tanstack/react-query';
import { useState } from 'react';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';
import { useCurrentKey } from '../../api/use-current-key';
import { type Model, typesOf, useModels } from '../../catalog/use-models';
import { ErrorLine } from '../../ui/ErrorLine';
import { Field } from '../../ui/Field';
import { QueryStatus } from '../../ui/Loading';
import { CopyRequest } from './CopyRequest';
import { type Draft, draftFor, missing, quoteOf, requestOf } from './draft';
import { inputsOf } from './inputs';
import { MediaInput } from './MediaInput';
import { ModelOptions } from './ModelOptions';
import { PlaygroundResult } from './PlaygroundResult';
import { QuoteLine, quoteRefusal, useQuote } from './QuoteLine';
import './playground.css';

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

interface DraftProps {
  models: Model[];
  draft: Draft;
  onChange: (draft: Draft) => void;
}

/** The type, then the model among those of the type (a model this gateway has not configured is shown, disabled). */
function ModelChoice({ models, draft, onChange }: DraftProps) {
  const choose = (next: Model | undefined) => next && onChange(draftFor(next, draft.prompt));
  return (
    <div className="options">
      <Field label="Type">
        {(control) => (
          <select
            {...control}
            value={draft.type}
            onChange={(event) => choose(models.find((each) => each.type === event.target.value && each.available))}
          >
            {typesOf(models.filter((each) => each.available)).map((type) => (
              <option key={type}>{type}</option>
            ))}
          </select>
        )}
      </Field>
      <Field label="Model">
        {(control) => (
          <select
            {...control}
            value={draft.model}
            onChange={(event) => choose(models.find((each) => each.id === event.target.value))}
          >
            {models
              .filter((each) => each.type === draft.type)
              .map((each) => (
                <option key={each.id} value={each.id} disabled={!each.available}>
                  {each.available ? each.id : `${each.id} (not configured)`}
                </option>
              ))}
          </select>
        )}
      </Field>
    </div>
  );
}

/** What the type takes: a prompt (required, optional or none) and its media inputs. */
function Inputs({ draft, onChange }: Omit<DraftProps, 'models'>) {
  const inputs = inputsOf(draft.type);
  return (
    <>
      {inputs.prompt !== 'none' && (
        <Field label={inputs.prompt === 'optional' ? 'Prompt (optional)' : 'Prompt'}>
          {(control) => (
            <textarea
              {...control}
              rows={4}
              value={draft.prompt}
              onChange={(event) => onChange({ ...draft, prompt: event.target.value })}
            />
          )}
        </Field>
      )}
      {inputs.media.map((media) => (
        <MediaInput
          key={media.field}
          label={media.label}
          accept={media.accept}
          value={draft.media[media.field] ?? ''}
          onChange={(url) => onChange({ ...draft, media: { ...draft.media, [media.field]: url } })}
        />
      ))}
    </>
  );
}

function Form({ models }: { models: Model[] }) {
  const [draft, setDraft] = useState(() => draftFor(models.find((model) => model.available) ?? models[0]!));
  const [taskId, setTaskId] = useState<string>();
  const model = models.find((each) => each.id === draft.model)!;
  const request = requestOf(draft);
  const quote = useQuote(quoteOf(request));
  const generate = useGenerate(setTaskId);
  const gaps = missing(draft);
  const mayGenerate = useCurrentKey().data?.scopes.includes('generate') ?? true;
  const refusal = mayGenerate ? quoteRefusal(quote.data) : 'This key has no `generate` scope: it cannot start tasks.';
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
        <ModelChoice models={models} draft={draft} onChange={setDraft} />
        <p className="muted">{model.description}</p>
        <Inputs draft={draft} onChange={setDraft} />
        <ModelOptions model={model} draft={draft} onChange={setDraft} />
        <QuoteLine quote={quote.data} error={mayGenerate ? quote.error : null} />
        {!mayGenerate && <ErrorLine error={refusal} />}
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
        <ErrorLine error={generate.error} />
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
      <QueryStatus query={models} loading="Loading the catalog…" />
      {models.data && models.data.length > 0 && <Form models={models.data} />}
    </>
  );
}
