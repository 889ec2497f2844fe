// How long the api keeps an idle client connection open. A proxy in front (the cluster's Caddy, a cloud load balancer)
// reuses its pooled connections; if the api closes one just as the proxy writes a request onto it, the proxy answers
// 502 and may not retry (a POST). So the api must wait longer than any proxy holds an idle connection: Node's 5 s
// default is far below every balancer's (Caddy 2 min, AWS ALB 60 s).
import type { Server } from 'node:http';

/** Longer than the balancers' idle timeouts we configure or document (the cluster's is `balancerIdleMs`). */
export const apiKeepAliveMs = 75_000;

export function holdIdleConnections(server: Server): Server {
  server.keepAliveTimeout = apiKeepAliveMs;
  return server;
}
