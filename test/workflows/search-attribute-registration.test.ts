// The boot check (src/use-cases/temporal/search-attributes.ts) on real dev servers: a namespace without the attributes gets
// them registered; one that cannot take them (its Keyword slots all used) fails the start naming each missing one.
import { defineSearchAttributeKey, SearchAttributeType } from '@temporalio/common';
import { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, describe, expect, it } from 'vitest';
import { temporalCliPath } from '../../src/infra/tools.ts';
import {
  checkSearchAttributes,
  ensureSearchAttributes,
  SearchAttributesMissingError,
  searchAttributeTypes,
} from '../../src/use-cases/temporal/search-attributes.ts';
import { searchAttributeKeys } from '../../workflows/contracts/search-attributes.ts';
import { testLogger } from '../helpers/logger.ts';
import { freePort } from '../../harness/ports.ts';

const names = searchAttributeKeys.map(({ name }) => name);
const envs: TestWorkflowEnvironment[] = [];

/** A dev server with only the given attributes registered (none of ours unless asked). */
async function devServer(fillers: string[] = []) {
  const env = await TestWorkflowEnvironment.createLocal({
    server: {
      executable: { type: 'existing-path', path: temporalCliPath },
      ip: '127.0.0.1',
      ui: false,
      searchAttributes: fillers.map((name) => defineSearchAttributeKey(name, SearchAttributeType.KEYWORD)),
    },
  });
  envs.push(env);
  return env;
}

afterAll(async () => {
  await Promise.all(envs.map((env) => env.teardown()));
});

describe('the boot check of the search attributes', () => {
  it('registers those a namespace lacks, with their types, and then finds nothing to do', async () => {
    const env = await devServer();
    expect((await ensureSearchAttributes(env.connection, 'default')).sort()).toEqual([...names].sort());
    const { customAttributes } = await env.connection.operatorService.listSearchAttributes({ namespace: 'default' });
    expect(customAttributes).toMatchObject(searchAttributeTypes());
    expect(await ensureSearchAttributes(env.connection, 'default')).toEqual([]);
  });

  it('fails naming every missing attribute, and the command, where the server will not take them', async () => {
    // The dev server's SQLite visibility has 10 Keyword slots: taken, it refuses any more.
    const env = await devServer(Array.from({ length: 10 }, (_, index) => `Other${index}`));
    const check = ensureSearchAttributes(env.connection, 'default');
    await expect(check).rejects.toBeInstanceOf(SearchAttributesMissingError);
    const error = (await check.catch((failure: unknown) => failure)) as SearchAttributesMissingError;
    expect(error.missing.sort()).toEqual([...names].sort());
    for (const name of names) {
      expect(error.message).toContain(
        `temporal operator search-attribute create --namespace default --name ${name} --type Keyword`,
      );
    }
  });

  it('lets the service start while Temporal is unreachable (the check is skipped, with a warning)', async () => {
    const address = `127.0.0.1:${await freePort()}`;
    await expect(
      checkSearchAttributes({ address, namespace: 'default', connection: {} }, testLogger),
    ).resolves.toBeUndefined();
  });
});
