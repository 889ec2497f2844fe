// A media input: a URL typed in, or a file uploaded (POST /uploads) whose URL is then used.
import { useMutation } from '@tanstack/react-query';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';
import { Field, FieldSet } from '../../ui/Field';

interface Props {
  label: string;
  accept: string;
  value: string;
  onChange: (url: string) => void;
}

export function MediaInput({ label, accept, value, onChange }: Props) {
  const { client } = useSession();
  const upload = useMutation({
    mutationFn: async (file: File) => {
      // The body is the file's bytes, sent as they are with its own media type.
      const answer = await client.POST('/uploads', {
        body: file as unknown as string,
        bodySerializer: (body) => body,
        headers: { 'Content-Type': file.type || 'application/octet-stream' },
      });
      return dataOf(answer);
    },
    onSuccess: (uploaded) => onChange(uploaded.url),
  });
  return (
    <FieldSet legend={label} className="media-input" error={upload.error}>
      <Field label={`${label} URL`} labelHidden>
        {(control) => (
          <input
            {...control}
            type="url"
            placeholder="https://…"
            value={value}
            onChange={(event) => onChange(event.target.value)}
          />
        )}
      </Field>
      <Field label="or upload a file">
        {(control) => (
          <input
            {...control}
            type="file"
            accept={accept}
            onChange={(event) => {
              const file = event.target.files?.[0];
              if (file) upload.mutate(file);
            }}
          />
        )}
      </Field>
      {upload.isPending && (
        <span className="muted" role="status">
          Uploading…
        </span>
      )}
    </FieldSet>
  );
}
