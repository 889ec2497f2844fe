// Writes console/src/api/schema.d.ts; `npm run build --prefix console` runs it first, a test checks it is current.
import { writeFile } from 'node:fs/promises';
import { schemaPath, schemaSource } from './schema-source.ts';

await writeFile(schemaPath, await schemaSource());
