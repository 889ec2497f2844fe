// Docker cannot run here; this keeps docker-compose.yml structurally right and in step with src/config/config.ts.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { TypedSearchAttributes } from '@temporalio/common';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { configKeys, loadConfig } from '../../src/config/config.ts';
import { registry } from '../../src/metrics/metrics.ts';
import { searchAttributeKeys } from '../../workflows/contracts/search-attributes.ts';

const root = join(import.meta.dirname, '..', '..');
// What an operator exports before `docker compose up` (compose refuses to start without it).
const operatorEnvironment: Record<string, string> = {
  DEPOSIT_XPUB:
    'xpub6EFHUEbYV13535ChA9yg5xZTWowwFCmFoWnhLbwkd91xHoirGu89GTZwBSUBnBpFeY5EV2cgof8yuyDnkeGALcD8DgGYJSiQfkxKpunWTX1',
  BASE_RPC_URL: 'https://mainnet.base.org',
  POSTGRES_PASSWORD: 'b3a1f0c9d2e4',
  OAUTH_TOKEN_SECRET: '5f0c1e9a7b3d2c4e6f8a0b1c3d5e7f9a2b4c6d8e0f1a3b5c',
  SIGNING_KEYS_SECRET: 'e4c1a9b07d2f4e6a8c3b5d7f9a1c3e5b',
  TASK_ID_SECRET: '5f0c9d2e4b3a1f0c9d2e4b3a1f0c9d2e4b3a1f0c',
};
const composeText = readFileSync(join(root, 'docker-compose.yml'), 'utf8');
// Compose's forms: `${NAME}`, `${NAME:?message}` (required) and `${NAME:-default}` (optional: the default).
const interpolated = composeText.replace(
  /\$\{(\w+)(?::([?-])([^}]*))?\}/g,
  (_, name: string, form?: string, fallback?: string) => {
    if (name in operatorEnvironment) return operatorEnvironment[name]!;
    if (form === '-') return fallback ?? '';
    throw new Error(`docker-compose.yml needs \${${name}} that this test does not supply`);
  },
);
const compose = parse(interpolated, { merge: true });
const services = compose.services as Record<string, any>;
// As written, before compose fills the variables in.
const written = parse(composeText, { merge: true }).services as Record<string, any>;

describe('docker-compose.yml', () => {
  it('has PostgreSQL, Temporal on PostgreSQL, the Temporal UI, an object store, api and worker', () => {
    expect(Object.keys(services).sort()).toEqual([
      'api',
      'objects',
      'objects-bucket',
      'postgres',
      'prometheus',
      'temporal',
      'temporal-namespace',
      'temporal-schema',
      'temporal-ui',
      'worker',
    ]);
    expect(services.postgres.image).toMatch(/^postgres:\d+/);
    expect(services.temporal.image).toMatch(/^temporalio\/server:\d/);
    expect(services.temporal.environment).toMatchObject({ DB: 'postgres12', POSTGRES_SEEDS: 'postgres' });
    expect(services['temporal-ui'].image).toMatch(/^temporalio\/ui:\d/);
    expect(services['temporal-ui'].environment.TEMPORAL_ADDRESS).toBe('temporal:7233');
  });

  it('publishes only the API on every interface, the Temporal UI and Prometheus on this machine only', () => {
    const published = Object.fromEntries(
      Object.entries(services)
        .filter(([, service]) => service.ports !== undefined)
        .map(([name, service]) => [name, service.ports]),
    );
    expect(published).toEqual({
      api: ['3000:3000'],
      'temporal-ui': ['127.0.0.1:8080:8080'],
      prometheus: ['127.0.0.1:9090:9090'],
    });
    // Nor around the port list: no service on the host's network.
    for (const [name, service] of Object.entries(services)) expect(service.network_mode, name).toBeUndefined();
  });

  it('takes the database password from a variable compose requires, everywhere it is used, and no fixed one', () => {
    const required = /^\$\{POSTGRES_PASSWORD:\?[^}]+\}$/;
    expect(written.postgres.environment.POSTGRES_PASSWORD).toMatch(required);
    expect(written['temporal-schema'].environment.SQL_PASSWORD).toMatch(required);
    expect(written.temporal.environment.POSTGRES_PWD).toMatch(required);
    for (const name of ['api', 'worker']) {
      const password = /^postgresql:\/\/gateway:([^@]+)@postgres:5432\/gateway$/.exec(
        written[name].environment.DATABASE_URL,
      )?.[1];
      expect(password, name).toMatch(required);
    }
    expect(services.postgres.environment.POSTGRES_PASSWORD).toBe(operatorEnvironment.POSTGRES_PASSWORD);
    expect(composeText).not.toMatch(/gateway:gateway@|PASSWORD: gateway$|PWD: gateway$/m);
  });

  it.each(['api', 'worker'])(
    '%s is built from this repository and its environment is a valid configuration',
    (name) => {
      const service = services[name];
      expect(service.build).toBe('.');
      expect(service.command).toEqual(['--role', name]);
      const environment = service.environment as Record<string, string>;
      // The AWS SDK reads its own variables (AWS_*); every other one is the gateway's.
      for (const key of Object.keys(environment).filter((key) => !key.startsWith('AWS_')))
        expect(configKeys, `${name}: ${key}`).toContain(key);
      const config = loadConfig(environment, service.command);
      expect(config.server.role).toBe(name);
      // The database it names is the postgres service's own.
      const url = new URL(config.database.url!);
      expect(url.hostname).toBe('postgres');
      expect(url.username).toBe(services.postgres.environment.POSTGRES_USER);
      expect(url.password).toBe(services.postgres.environment.POSTGRES_PASSWORD);
      expect(url.pathname).toBe(`/${services.postgres.environment.POSTGRES_DB}`);
      expect(config.temporal.address).toBe('temporal:7233');
    },
  );

  it("keeps outputs and uploads in the object store's bucket, which exists before api and worker start", () => {
    const [api, worker] = (['api', 'worker'] as const).map((name) =>
      loadConfig(services[name].environment, services[name].command),
    ) as [ReturnType<typeof loadConfig>, ReturnType<typeof loadConfig>];
    expect(api.storage).toEqual(worker.storage);
    expect(api.storage).toMatchObject({ driver: 's3', s3: { bucket: 'gateway', forcePathStyle: true } });
    const bucket = services['objects-bucket'];
    for (const name of ['api', 'worker']) {
      const environment = services[name].environment as Record<string, string>;
      // The SDK's endpoint is the objects service, as the bucket's creator reaches it, with the same credentials.
      for (const variable of ['AWS_ENDPOINT_URL_S3', 'AWS_REGION', 'AWS_ACCESS_KEY_ID', 'AWS_SECRET_ACCESS_KEY'])
        expect(environment[variable], `${name}: ${variable}`).toBe(bucket.environment[variable]);
      expect(services[name].depends_on['objects-bucket']).toEqual({ condition: 'service_completed_successfully' });
      // No files volume: nothing is shared through a disk, so api and worker may run on different hosts.
      expect(services[name].volumes, name).toBeUndefined();
    }
    expect(new URL(bucket.environment.AWS_ENDPOINT_URL_S3).hostname).toBe('objects');
    expect((bucket.command as string[]).join(' ')).toContain(`--bucket ${api.storage.s3.bucket}`);
    expect(services.objects.command).toContain('-s3');
    expect(services.objects.volumes).toContain('objects-data:/data');
    expect(compose.volumes).not.toHaveProperty('gateway-files');
    expect(worker.server.publicBaseUrl).toBe(api.server.publicBaseUrl);
    expect(services.api.ports).toContain(`${new URL(api.server.publicBaseUrl!).port}:${api.server.port}`);
  });

  it("refuses to start without the operator's deposit key, OAuth token secret and task id secret", () => {
    expect(composeText).toMatch(/DEPOSIT_XPUB: \$\{DEPOSIT_XPUB:\?/);
    expect(composeText).toMatch(/OAUTH_TOKEN_SECRET: \$\{OAUTH_TOKEN_SECRET:\?/);
    expect(composeText).toMatch(/TASK_ID_SECRET: \$\{TASK_ID_SECRET:\?/);
  });

  it('registers every search attribute the workflows set, with its type, before api and worker start', () => {
    const init = services['temporal-namespace'];
    // The admin tools of the server's own release.
    expect(init.image.split(':')[1].split('-')[0]).toBe(services.temporal.image.split(':')[1]);
    expect(init.environment).toEqual({ TEMPORAL_ADDRESS: 'temporal:7233', TEMPORAL_NAMESPACE: 'default' });
    const script = (init.command as string[]).join(' ');
    const registered = [...script.matchAll(/--name (\w+) --type (\w+)/g)].map(([, name, type]) => `${name}=${type}`);
    const expected = searchAttributeKeys.map(
      ({ name, type }) => `${name}=${TypedSearchAttributes.toMetadataType(type)}`,
    );
    expect(registered.sort()).toEqual(expected.sort());
    for (const name of ['api', 'worker']) {
      const environment = loadConfig(services[name].environment, services[name].command);
      expect(environment.temporal.namespace).toBe(init.environment.TEMPORAL_NAMESPACE);
      expect(services[name].depends_on['temporal-namespace']).toEqual({
        condition: 'service_completed_successfully',
      });
    }
  });

  it('runs Prometheus scraping every api and worker container where they serve metrics, and the SDK metrics of workers', () => {
    const prometheus = services.prometheus;
    expect(prometheus.image).toMatch(/^prom\/prometheus:v\d/);
    expect(prometheus.volumes).toContain('./deploy/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    expect(prometheus.ports).toEqual(['127.0.0.1:9090:9090']);
    expect(prometheus.depends_on).toEqual(['api', 'worker']);
    const scrape = parse(readFileSync(join(root, 'deploy', 'prometheus.yml'), 'utf8')).scrape_configs as any[];
    const targets = scrape.map(({ job_name, dns_sd_configs }) => [
      job_name,
      dns_sd_configs.map(({ names, port }: any) => `${names.join(',')}:${port}`),
    ]);
    const [api, worker] = (['api', 'worker'] as const).map((name) =>
      loadConfig(services[name].environment, services[name].command),
    );
    // Reachable from the prometheus container, and never published on the host.
    for (const config of [api!, worker!]) expect(config.metrics.host).toBe('0.0.0.0');
    expect(services.api.ports).toEqual(['3000:3000']);
    expect(api!.metrics.temporalPort).toBeUndefined();
    expect(Object.fromEntries(targets)).toEqual({
      'gateway-api': [`api:${api!.metrics.port}`],
      'gateway-worker': [`worker:${worker!.metrics.port}`],
      'temporal-sdk': [`worker:${worker!.metrics.temporalPort}`],
    });
  });

  it("has a Grafana dashboard whose queries name only the gateway's series and the SDK's", async () => {
    const dashboard = JSON.parse(readFileSync(join(root, 'deploy', 'grafana', 'gateway-dashboard.json'), 'utf8'));
    const expressions: string[] = dashboard.panels.flatMap((panel: any) =>
      panel.targets.map((target: any) => target.expr),
    );
    const known = new Set((await registry.getMetricsAsJSON()).map(({ name }) => name));
    const named = expressions.flatMap((expr) => [...expr.matchAll(/\b(gateway_\w+)/g)].map(([, name]) => name!));
    const unknown = named.filter((name) => !known.has(name.replace(/_(bucket|sum|count)$/, '')));
    expect(unknown).toEqual([]);
    // Request rate and latency, admissions, tasks by status, end-to-end duration, money.
    for (const family of [
      'gateway_http_requests_total',
      'gateway_http_request_duration_seconds_bucket',
      'gateway_admissions_total',
      'gateway_tasks_ended_total',
      'gateway_task_duration_seconds_bucket',
      'gateway_money_charged_micro_usd_total',
    ])
      expect(named).toContain(family);
    expect(expressions.some((expr) => expr.includes('temporal_'))).toBe(true);
  });

  it('has a Dockerfile whose entry point takes the role', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).toMatch(/^ENTRYPOINT \["node", "scripts\/start\.mjs"\]$/m);
    expect(dockerfile).toMatch(/setup\.mjs --no-temporal/);
  });
});
