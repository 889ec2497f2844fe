// GET /llms.txt: the agents' front page. Every call it tells an agent to make is an endpoint this server has, every
// link answers, and it names only the payment routes this server takes.
import { describe, expect, it } from 'vitest';
import { apiEndpoints } from '../../src/api/resources/index.ts';
import { useAppWithDatabase } from '../helpers/app.ts';

const withX402 = useAppWithDatabase({
  config: { x402: { enabled: true }, chains: { base: { rpcUrl: 'http://127.0.0.1:9/base' } } },
});
const withoutX402 = useAppWithDatabase({ config: { x402: { enabled: false } } });

const read = async (url: string) => {
  const response = await fetch(`${url}/llms.txt`);
  return { response, text: await response.text() };
};

describe('GET /llms.txt', () => {
  it('is Markdown in the llms.txt shape: a title, a summary, sections', async () => {
    const { response, text } = await read(withX402.app.url);
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/markdown; charset=utf-8');
    const lines = text.split('\n');
    expect(lines[0]).toBe('# Generation Gateway');
    expect(lines[2]).toMatch(/^> One HTTP API for .*text-to-image.* generation \(\d+ models\)/);
    expect(lines.filter((line) => line.startsWith('## '))).toEqual([
      '## Start as an agent',
      '## Paying',
      '## Errors',
      '## Reference',
    ]);
  });

  it('names only calls this server answers, at its own address', async () => {
    const { url } = withX402.app;
    const { text } = await read(url);
    const calls = [...text.matchAll(/`(GET|POST) ([^`\s]+)/g)].map(([, method, target]) => ({
      method,
      target: target!,
    }));
    expect(calls.length).toBeGreaterThanOrEqual(7);
    const declared = apiEndpoints.map((endpoint) => `${endpoint.method.toUpperCase()} ${endpoint.path}`);
    for (const { method, target } of calls) {
      expect(target.startsWith(`${url}/api/v1/`), target).toBe(true);
      const path = target.slice(`${url}/api/v1`.length).split('?')[0];
      expect(declared, `${method} ${path}`).toContain(`${method} ${path}`);
    }
    for (const [, link] of text.matchAll(/\]\((http[^)]+)\)/g)) expect((await fetch(link!)).status, link).toBe(200);
  });

  it('points at the event streams and the well-known discovery documents', async () => {
    const { url } = withX402.app;
    const { text } = await read(url);
    expect(text).toContain(`GET ${url}/api/v1/generations/{id}/events`);
    expect(text).toContain(`GET ${url}/api/v1/events`);
    expect(text).toContain('Last-Event-ID');
    expect(text).toContain(`(${url}/.well-known/mcp/server-card.json)`);
  });

  it('offers x402 only where the server takes it', async () => {
    expect((await read(withX402.app.url)).text).toContain('**x402, per call, no account**');
    expect((await read(withoutX402.app.url)).text).not.toContain('x402');
  });
});
