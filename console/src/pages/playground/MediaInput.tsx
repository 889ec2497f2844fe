// A media input: a URL typed in, or a file uploaded (POST /uploads) whose URL is then used.
import { useMutation } from '@tanstack/react-query';
import { useId } from 'react';
import { dataOf } from '../../api/answer';
import { useSession } from '../../api/session';

interface Props {
  label: string;
  accept: string;
  value: string;
  onChange: (url: string) => void;
}

export function MediaInput({ label, accept, value, onChange }: Props) {
  const { client } = useSession();
  const id = useId();
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
    <fieldset className="field media-input">
      <legend className="label">{label}</legend>
      <label htmlFor={`${id}-url`} className="visually-hidden">
        {label} URL
      </label>
      <input
        id={`${id}-url`}
        type="url"
        placeholder="https://…"
        value={value}
        onChange={(event) => onChange(event.target.value)}
      />
      <label htmlFor={`${id}-file`}>or upload a file</label>
      <input
        id={`${id}-file`}
        type="file"
        accept={accept}
        onChange={(event) => {
          const file = event.target.files?.[0];
          if (file) upload.mutate(file);
        }}
      />
      {upload.isPending && <span className="muted">Uploading…</span>}
      {upload.isError && (
        <span className="error" role="alert">
          {upload.error.message}
        </span>
      )}
    </fieldset>
  );
}
