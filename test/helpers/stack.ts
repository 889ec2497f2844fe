import type { TestWorkflowEnvironment } from '@temporalio/testing';
import { afterAll, beforeAll } from 'vitest';
import { createTestDatabase, type TestDatabase } from './database.ts';
import { createDevServerEnv } from './temporal.ts';

export interface RealStack {
  env: TestWorkflowEnvironment;
  database: TestDatabase;
}

/** A Temporal dev server and a fresh migrated database for the calling file's tests (filled in beforeAll). */
export function useDevServerAndDatabase(): RealStack {
  const stack = {} as RealStack;
  beforeAll(async () => {
    [stack.env, stack.database] = await Promise.all([createDevServerEnv(), createTestDatabase()]);
  });
  afterAll(async () => {
    await stack.env?.teardown();
    await stack.database?.drop();
  });
  return stack;
}
