// The pinned builds of `npm run cluster`, in one place: docker-compose.yml and the Dockerfile follow the same Temporal
// release (test/cluster/cluster-versions.test.ts compares them).

/** Go's own toolchain, fetched by `go` from the module proxy: Temporal v1.32.2 needs Go ≥ 1.26.10. */
export const goToolchain = 'go1.27.3';

/** Temporal's server and its SQL schema tool (`go.temporal.io/server`). */
export const temporalServerVersion = 'v1.32.2';

/** The Web UI server the Temporal CLI 1.9.1 (server 1.32.0) embeds: a release known to speak to this server. */
export const temporalUiVersion = 'v2.54.1';

/** SeaweedFS publishes tags that are not semver, so the module proxy serves it by pseudo-version. */
export const seaweedfsVersion = 'v0.0.0-20261109003541-7506e5f91cd6';

/** Caddy, the load balancer in front of the api processes (`github.com/caddyserver/caddy/v2`). */
export const caddyVersion = 'v2.11.9';

/** A history shard count is fixed for the life of a cluster's database: 4 suits one machine (see docs/scaling.md, Cluster). */
export const historyShards = 4;
