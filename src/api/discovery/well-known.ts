// Discovery documents at the well-known paths agents look for (RFC 8615): an MCP Server Card (SEP-2127's
// `/.well-known/mcp/server-card.json`; `/.well-known/mcp.json` too, an older name) and an A2A Agent Card
// (`/.well-known/agent-card.json`; `agent.json` before A2A 0.3). Both describe this server at its own address: what it
// generates, the REST API and its OpenAPI document, the MCP endpoint, the event streams and how to authenticate.
import { Router } from 'express';
import type { Catalog } from '../../catalog/catalog.ts';
import { x402Offered } from '../../chain/settings.ts';
import type { Config } from '../../config/config.ts';
import { apiVersion } from '../openapi.ts';
import { documentBase } from './document-base.ts';

type DiscoveryConfig = Pick<Config, 'x402' | 'chains'> & { server: Pick<Config['server'], 'publicBaseUrl' | 'port'> };

const title = 'Generation Gateway';

const summary = (catalog: Catalog) =>
  `Asynchronous ${[...new Set(catalog.models.map((model) => model.type))].join(', ')} generation behind one API ` +
  `(${catalog.models.length} models): prepaid USD or USDC balances, or x402 per call.`;

/** How a caller authenticates, in OpenAPI's security scheme form (both cards use it). */
function securitySchemes(config: DiscoveryConfig) {
  return {
    bearerAuth: {
      type: 'http',
      scheme: 'bearer',
      description: 'API key: rf_… (agent, from POST /api/v1/agents/register), sk_… or vega_… (developer).',
    },
    ...(x402Offered(config) && {
      x402: {
        type: 'apiKey',
        in: 'header',
        name: 'PAYMENT-SIGNATURE',
        description: 'x402 payment (v2; X-PAYMENT for v1) on POST /api/v1/generations, answered 402 with the offers.',
      },
    }),
  };
}

/** SEP-2127's server card: the server's identity and where to connect. */
export function mcpServerCard(config: DiscoveryConfig, catalog: Catalog, base: string) {
  const host = new URL(base).hostname.split('.').reverse().join('.');
  return {
    $schema: 'https://static.modelcontextprotocol.io/schemas/v1/server-card.schema.json',
    name: `${host}/generation-gateway`,
    version: apiVersion,
    title,
    description: summary(catalog),
    websiteUrl: `${base}/docs`,
    remotes: [
      {
        type: 'streamable-http',
        url: `${base}/mcp`,
        headers: [
          {
            name: 'Authorization',
            description:
              'Bearer rf_…/sk_… API key, or an x402 task token tt_…; without one only register_agent, list_models (and a paid generate) work.',
            isRequired: false,
            isSecret: true,
          },
        ],
      },
    ],
    _meta: { 'io.modelcontextprotocol/security-schemes': securitySchemes(config) },
  };
}

/** An A2A agent card: this is a REST and MCP service, not an A2A task server, so its endpoints are extensions. */
export function agentCard(config: DiscoveryConfig, catalog: Catalog, base: string) {
  const api = `${base}/api/v1`;
  const types = [...new Set(catalog.models.map((model) => model.type))];
  return {
    name: title,
    description: summary(catalog),
    version: apiVersion,
    documentationUrl: `${base}/llms.txt`,
    provider: { organization: title, url: base },
    supportedInterfaces: [],
    capabilities: {
      streaming: true,
      pushNotifications: true,
      extensions: [
        {
          uri: 'https://spec.openapis.org/oas/v3.1.0',
          description: 'REST API',
          params: { url: `${api}/openapi.json` },
        },
        {
          uri: 'https://modelcontextprotocol.io',
          description: 'MCP server (Streamable HTTP)',
          params: { url: `${base}/mcp` },
        },
        {
          uri: 'https://html.spec.whatwg.org/multipage/server-sent-events.html',
          description: 'Task events as server-sent events, resumable with Last-Event-ID',
          params: { task: `${api}/generations/{id}/events`, account: `${api}/events` },
        },
      ],
    },
    securitySchemes: securitySchemes(config),
    security: [{ bearerAuth: [] }],
    defaultInputModes: ['application/json'],
    defaultOutputModes: ['application/json', 'image/*', 'video/*', 'audio/*', 'model/gltf-binary', 'text/plain'],
    skills: types.map((type) => ({
      id: type,
      name: type,
      description: `${type} with any ${type} model of GET ${api}/models: POST ${api}/generations`,
      tags: ['generation', type],
    })),
  };
}

/** The documents for PUBLIC_BASE_URL, or for the address the request came to. */
export function wellKnownRouter(config: DiscoveryConfig, catalog: Catalog): Router {
  const router = Router();
  const serve = (paths: string[], document: (config: DiscoveryConfig, catalog: Catalog, base: string) => object) =>
    router.get(paths, (req, res) => {
      const { base, cacheControl } = documentBase(config.server, req);
      res.set('Cache-Control', cacheControl).json(document(config, catalog, base));
    });
  serve(['/.well-known/mcp/server-card.json', '/.well-known/mcp.json'], mcpServerCard);
  serve(['/.well-known/agent-card.json', '/.well-known/agent.json'], agentCard);
  return router;
}
