// `npm run cluster` and docker-compose.yml run the same Temporal: one release, one schema procedure, one persistence
// configuration, one dynamic configuration, one namespace retention. The Dockerfile builds only the gateway.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { schemaSteps, sqlToolEnvironment } from '../../cluster/temporal-schema.ts';
import { namespaceRetention, temporalPersistenceEnvironment } from '../../cluster/temporal-server.ts';
import { historyShards, temporalServerVersion, temporalUiVersion } from '../../cluster/versions.ts';

const root = join(import.meta.dirname, '..', '..');
// The operator's variables compose requires, with any value: only the Temporal services are read here.
const composeText = readFileSync(join(root, 'docker-compose.yml'), 'utf8').replace(
  /\$\{(\w+)(?::([?-])([^}]*))?\}/g,
  (_, _name: string, form?: string, fallback?: string) => (form === '-' ? (fallback ?? '') : 'set'),
);
const services = parse(composeText, { merge: true }).services as Record<string, any>;
const tagOf = (image: string) => image.split(':')[1]!;
const release = temporalServerVersion.replace(/^v/, '');

describe('the cluster and docker-compose.yml', () => {
  it('run the same Temporal server release, with admin tools and a Web UI of that build', () => {
    expect(services.temporal.image).toBe(`temporalio/server:${release}`);
    expect(tagOf(services['temporal-schema'].image)).toBe(release);
    expect(tagOf(services['temporal-namespace'].image)).toBe(release);
    expect(services['temporal-ui'].image).toBe(`temporalio/ui:${temporalUiVersion.replace(/^v/, '')}`);
  });

  it('set up the schema with the SQL tool in the same steps, against the same database', () => {
    const schema = services['temporal-schema'];
    // The admin tools image keeps the release's schema where the cluster's build copies it (.tools/…/schema).
    const steps = schemaSteps('/etc/temporal/schema/postgresql/v12').map(
      (args) => `temporal-sql-tool ${args.join(' ')}`,
    );
    expect((schema.command as string[]).join(' ').split(/\s*&&\s*/)).toEqual(steps);
    const postgres = services.postgres.environment;
    expect(schema.environment).toEqual(
      sqlToolEnvironment({
        host: 'postgres',
        port: 5432,
        user: postgres.POSTGRES_USER,
        password: postgres.POSTGRES_PASSWORD,
      }),
    );
    expect(services.temporal.depends_on['temporal-schema']).toEqual({ condition: 'service_completed_successfully' });
  });

  it('configure the server alike: PostgreSQL persistence and visibility, the history shards, the dynamic config', () => {
    const environment = services.temporal.environment as Record<string, string>;
    expect(environment).toMatchObject(temporalPersistenceEnvironment);
    expect(environment.NUM_HISTORY_SHARDS).toBe(String(historyShards));
    const mounted = (services.temporal.volumes as string[]).find((volume) =>
      volume.endsWith(`:${environment.DYNAMIC_CONFIG_FILE_PATH}:ro`),
    );
    expect(mounted).toBe(`./deploy/temporal/dynamicconfig.yaml:${environment.DYNAMIC_CONFIG_FILE_PATH}:ro`);
    expect(parse(readFileSync(join(root, 'deploy', 'temporal', 'dynamicconfig.yaml'), 'utf8'))).toBeTypeOf('object');
  });

  it('register the namespace with the same retention', () => {
    const script = (services['temporal-namespace'].command as string[]).join(' ');
    expect(script).toContain(
      `temporal operator namespace create --namespace default --retention ${namespaceRetention}`,
    );
  });

  it('leave Temporal out of the gateway image, which takes the server compose runs', () => {
    const dockerfile = readFileSync(join(root, 'Dockerfile'), 'utf8');
    expect(dockerfile).not.toMatch(/temporalio\/|go\.temporal\.io/);
    expect(dockerfile).toMatch(/setup\.mjs --no-temporal/);
  });
});
