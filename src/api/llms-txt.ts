// GET /llms.txt (llmstxt.org): what the service is and how an agent registers, pays and generates, in the Markdown an
// agent reads before it calls anything, with links to the full references. Written from this server's own settings,
// so it names only the payment routes it takes and the chains it watches.
import { Router } from 'express';
import type { Catalog } from '../catalog/catalog.ts';
import { enabledChains, x402Offered } from '../chain/settings.ts';
import type { Config } from '../config/config.ts';
import { formatUsd } from '../domain/money.ts';
import { documentBase } from './discovery/document-base.ts';

function paymentLines(config: Pick<Config, 'x402' | 'chains' | 'accounts'>, api: string): string[] {
  const chains = enabledChains(config.chains).map((chain) => chain.chain);
  const lines = [
    `- **A balance in USDC**: send USDC on ${chains.join(', ') || 'a chain this server watches'} to your deposit address (from registration, or GET ${api}/agents/balance), then claim it: \`POST ${api}/agents/deposit\` with \`{"tx_hash": "0x…", "chain": "${chains[0] ?? 'base'}"}\`. Deposits are also credited on their own once confirmed.`,
  ];
  if (config.accounts.trialCreditUsd > 0n)
    lines.push(
      `- **Trial credit**: a new agent may start with $${formatUsd(config.accounts.trialCreditUsd)} (\`trial_credit_applied\` in the registration says whether it did; limited per address and per day).`,
    );
  if (x402Offered(config))
    lines.push(
      `- **x402, per call, no account**: \`POST ${api}/generations\` without a key answers 402 with the payment requirements; pay with an x402 client (v1 \`X-PAYMENT\` or v2 \`PAYMENT-SIGNATURE\`). The payment settles only once the outputs are stored; the answer carries a token that reads the task.`,
    );
  return lines;
}

export function llmsTxt(config: Pick<Config, 'x402' | 'chains' | 'accounts'>, catalog: Catalog, base: string): string {
  const api = `${base}/api/v1`;
  const types = [...new Set(catalog.models.map((model) => model.type))];
  return [
    '# Generation Gateway',
    '',
    `> One HTTP API for ${types.join(', ')} generation (${catalog.models.length} models). Tasks are asynchronous: create one, then poll it, hold the request until it ends (\`Prefer: wait\`) or receive a signed webhook. Developers pay from a USD balance, AI agents from USDC deposited on-chain${x402Offered(config) ? ' or per call with x402' : ''}. A failed task costs nothing; a completed one costs at most its quote.`,
    '',
    '## Start as an agent',
    '',
    `1. Register, no key needed: \`POST ${api}/agents/register\` with \`{"agent_name": "my-agent"}\`. The answer holds your \`api_key\` (sent as \`Authorization: Bearer …\` from then on, shown once) and your \`deposit_addresses\`.`,
    `2. Choose a model: \`GET ${api}/models\` (filter with \`?type=text-to-image\`), and price a request: \`POST ${api}/agents/quote\`.`,
    `3. Generate: \`POST ${api}/generations\` with \`{"type": "text-to-image", "model": "…", "prompt": "…"}\` and an \`Idempotency-Key\` header (a retry with the same key never runs or charges twice). The answer is 202 with the task's \`id\` and \`poll_url\`.`,
    `4. Follow it: \`GET ${api}/generations/{id}\` until \`status\` is \`completed\` (its \`output\`/\`outputs\` are links to the files) or \`failed\` (its \`error\` says why; nothing charged). \`Prefer: wait=60\` holds the answer until the task ends; a \`webhook_url\` receives \`generation.completed\` / \`generation.failed\`, signed (Standard Webhooks).`,
    `5. Or watch it: \`GET ${api}/generations/{id}/events\` is a stream of server-sent events (\`queued\`, \`processing\`, \`progress\`, then \`completed\` or \`failed\` with the task) that closes after the last one; \`GET ${api}/events\` streams every task of your account and stays open. Reconnect with \`Last-Event-ID\` to resume where you left off.`,
    `6. Your balance and deposits: \`GET ${api}/agents/balance\`.`,
    '',
    '## Paying',
    '',
    ...paymentLines(config, api),
    '',
    '## Errors',
    '',
    'Every error is JSON `{"error": "<code>", "message": "…"}` with its HTTP status: 400 names the field, 402 `insufficient_balance` carries the cost and what is available, 409 an `Idempotency-Key` reused with another body, 429 and 503 carry `Retry-After`.',
    '',
    '## Reference',
    '',
    `- [OpenAPI document](${api}/openapi.json): every endpoint, field and error`,
    `- [Interactive API reference](${base}/docs)`,
    `- [Models](${api}/models): types, capabilities and prices`,
    `- [MCP server card](${base}/.well-known/mcp/server-card.json) (the MCP endpoint is \`${base}/mcp\`) and [agent card](${base}/.well-known/agent-card.json)`,
    '',
  ].join('\n');
}

/** The document for PUBLIC_BASE_URL, or for the address the request came to. */
export function llmsTxtRouter(
  config: Pick<Config, 'x402' | 'chains' | 'accounts' | 'server'>,
  catalog: Catalog,
): Router {
  const router = Router();
  router.get('/llms.txt', (req, res) => {
    const { base, cacheControl } = documentBase(config.server, req);
    res
      .type('text/markdown; charset=utf-8')
      .set('Cache-Control', cacheControl)
      .send(llmsTxt(config, catalog, base));
  });
  return router;
}
