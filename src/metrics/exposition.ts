// Serving the registry in Prometheus's text format: on the api (GET /metrics, behind METRICS_TOKEN) and on a port of
// its own (METRICS_PORT) in every role, so a worker without HTTP is scraped too.
import { timingSafeEqual } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import { registry } from './metrics.ts';

const authorized = (header: string | undefined, token: string | undefined) => {
  if (!token) return true;
  const expected = Buffer.from(`Bearer ${token}`);
  const given = Buffer.from(header ?? '');
  return given.length === expected.length && timingSafeEqual(given, expected);
};

/** Answers a scrape: 401 without the token (when one is configured), else the registry's text. */
export async function answerScrape(req: IncomingMessage, res: ServerResponse, token: string | undefined) {
  if (!authorized(req.headers.authorization, token)) {
    res.writeHead(401, { 'content-type': 'application/json', 'www-authenticate': 'Bearer' });
    res.end(
      JSON.stringify({ error: 'unauthorized', message: 'GET /metrics needs the metrics token as a Bearer token.' }),
    );
    return;
  }
  const text = await registry.metrics();
  res.writeHead(200, { 'content-type': registry.contentType });
  res.end(text);
}

/** GET /metrics on a listener of its own; anything else is 404. Returns its stop. */
export async function startMetricsServer(options: { host: string; port: number; token?: string }) {
  const server = createServer((req, res) => {
    if (req.method === 'GET' && req.url?.split('?')[0] === '/metrics') {
      answerScrape(req, res, options.token).catch(() => {
        res.writeHead(500).end();
      });
      return;
    }
    res.writeHead(404, { 'content-type': 'application/json' });
    res.end(JSON.stringify({ error: 'not_found', message: 'Only GET /metrics is served here.' }));
  });
  server.listen(options.port, options.host);
  await once(server, 'listening');
  return {
    server,
    stop: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}
