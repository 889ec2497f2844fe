// Temporal's schema on PostgreSQL, set up by its own SQL tool exactly as docker-compose.yml's temporal-schema service
// does (test/cluster/cluster-versions.test.ts compares them): each database created, versioned, then brought to the
// release's latest schema. Every step is idempotent, so each start runs them all and a newer build upgrades in place.
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';

/** The two databases and the folder of each one's versioned schema, under `schema/postgresql/v12/`. */
export const temporalDatabases = [
  { database: 'temporal', schema: 'temporal' },
  { database: 'temporal_visibility', schema: 'visibility' },
] as const;

/** The SQL tool's arguments, step by step, given the folder holding `temporal/` and `visibility/` of postgresql/v12. */
export const schemaSteps = (schemaRoot: string): string[][] =>
  temporalDatabases.flatMap(({ database, schema }) => [
    ['--db', database, 'create-database'],
    ['--db', database, 'setup-schema', '-v', '0.0'],
    ['--db', database, 'update-schema', '-d', join(schemaRoot, schema, 'versioned')],
  ]);

export interface SqlConnection {
  host: string;
  port: number;
  user: string;
  password: string;
}

/** How the SQL tool is pointed at PostgreSQL: its own environment variables, as compose sets them. */
export const sqlToolEnvironment = (connection: SqlConnection) => ({
  SQL_PLUGIN: 'postgres12',
  SQL_HOST: connection.host,
  SQL_PORT: String(connection.port),
  SQL_USER: connection.user,
  SQL_PASSWORD: connection.password,
});

export async function setUpTemporalSchema(sqlTool: string, schemaRoot: string, connection: SqlConnection) {
  const env = { ...process.env, ...sqlToolEnvironment(connection) };
  for (const args of schemaSteps(schemaRoot)) {
    try {
      await promisify(execFile)(sqlTool, args, { env, maxBuffer: 16 * 1024 * 1024 });
    } catch (error) {
      const { stderr, stdout } = error as { stderr?: string; stdout?: string };
      throw new Error(`temporal-sql-tool ${args.join(' ')} failed: ${(stderr || stdout || String(error)).trim()}`, {
        cause: error,
      });
    }
  }
}
