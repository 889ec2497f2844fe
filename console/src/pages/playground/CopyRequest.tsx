// "Copy as curl", "Copy as MCP call" and "Copy as OpenAI SDK": the form's request, to the clipboard, with the key as a
// placeholder.
import { useMemo, useState } from 'react';
import { curlCommand, mcpCall, openAiSdkCode } from './copy-as';
import type { GenerationRequest } from './inputs';

export function CopyRequest({ request }: { request: GenerationRequest }) {
  const [copied, setCopied] = useState<string>();
  const copy = async (what: string, text: string) => {
    try {
      await navigator.clipboard.writeText(text);
      setCopied(`${what} copied.`);
    } catch {
      setCopied(`The browser did not allow copying; select the ${what} below.`);
    }
  };
  // A new key for each request the form makes, kept while the form is unchanged.
  const idempotencyKey = useMemo(() => crypto.randomUUID(), [JSON.stringify(request)]);
  const curl = curlCommand(location.origin, request, idempotencyKey);
  const mcp = mcpCall(request);
  const sdk = openAiSdkCode(location.origin, request);
  return (
    <>
      <button type="button" className="secondary" onClick={() => void copy('curl command', curl)}>
        Copy as curl
      </button>
      <button type="button" className="secondary" onClick={() => void copy('MCP call', mcp)}>
        Copy as MCP call
      </button>
      {sdk && (
        <button type="button" className="secondary" onClick={() => void copy('OpenAI SDK code', sdk)}>
          Copy as OpenAI SDK
        </button>
      )}
      <span className="muted" role="status">
        {copied}
      </span>
      <details className="request-text">
        <summary>Show the request</summary>
        <pre>{curl}</pre>
        <p className="muted">
          MCP: <code>{location.origin}/mcp</code>, the key as its bearer token
        </p>
        <pre>{mcp}</pre>
        {sdk && (
          <>
            <p className="muted">
              The <code>openai</code> SDK (Node), against <code>{location.origin}/openai/v1</code>
            </p>
            <pre>{sdk}</pre>
          </>
        )}
      </details>
    </>
  );
}
