// The discovery documents (/llms.txt, the well-known cards) are built for an address (issue 35, point 13): with
// PUBLIC_BASE_URL they name it whatever Host or X-Forwarded-Proto a request carries, and may be cached by anyone;
// without it they name the loopback address the request came to (issue 55, point 22), never a Host the caller made up,
// and are cached by that caller only.
import { get } from 'node:http';
import { describe, expect, it } from 'vitest';
import { useAppWithDatabase } from '../helpers/app.ts';

const published = useAppWithDatabase({
  config: { server: { publicBaseUrl: 'https://gen.example.com/', trustProxy: 'true' } },
});
const unpublished = useAppWithDatabase({ config: { server: { trustProxy: 'true' } } });

const foreign = { host: 'attacker.example', 'x-forwarded-proto': 'https' };

/** GET `path` with the given headers (Host among them, which fetch would not send as given). */
function read(url: string, path: string, headers: Record<string, string>) {
  return new Promise<{ cacheControl?: string; body: string }>((resolve, reject) => {
    get(`${url}${path}`, { headers }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ cacheControl: response.headers['cache-control'], body }));
    }).on('error', reject);
  });
}

const documents = ['/llms.txt', '/.well-known/mcp/server-card.json', '/.well-known/agent-card.json'];

describe.each(documents)('GET %s', (path) => {
  it('with PUBLIC_BASE_URL: names it for a foreign Host, and may be cached publicly', async () => {
    const { cacheControl, body } = await read(published.app.url, path, foreign);
    expect(body).toContain('https://gen.example.com/');
    expect(body).not.toContain('attacker.example');
    expect(cacheControl).toBe('public, max-age=300');
  });

  it('without it: names the loopback address asked, and is cached by that caller only', async () => {
    const port = new URL(unpublished.app.url).port;
    for (const host of ['127.0.0.1', 'localhost']) {
      const { cacheControl, body } = await read(unpublished.app.url, path, { host: `${host}:${port}` });
      expect(body).toContain(`http://${host}:${port}/`);
      expect(cacheControl).toBe('private, max-age=300');
    }
  });

  it('without it: names the default address for any other Host', async () => {
    const { body } = await read(unpublished.app.url, path, foreign);
    expect(body).not.toContain('attacker.example');
    expect(body).toContain(`http://localhost:${unpublished.app.config.server.port}/`);
  });
});
