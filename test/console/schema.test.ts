// The console's typed client cannot drift from the API: its generated types must be those of the current document.
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { schemaPath, schemaSource } from '../../console/scripts/schema-source.ts';

describe('console API types', () => {
  it('console/src/api/schema.d.ts is generated from the current OpenAPI document (npm run openapi --prefix console)', async () => {
    expect(await readFile(schemaPath, 'utf8')).toBe(await schemaSource());
  });
});
