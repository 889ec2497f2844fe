// One connection of its own for set-up work (migrations, creating a database, Temporal's ring table), closed after.
import pg from 'pg';

export async function withPgClient<T>(
  config: string | pg.ClientConfig,
  use: (client: pg.Client) => Promise<T>,
): Promise<T> {
  const client = new pg.Client(config);
  await client.connect();
  try {
    return await use(client);
  } finally {
    await client.end();
  }
}
