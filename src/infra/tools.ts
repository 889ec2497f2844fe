import { join } from 'node:path';

/** Where scripts/setup.mjs installs the Temporal CLI and test server wheels. */
export const toolsDir = join(import.meta.dirname, '..', '..', '.tools', 'temporal', 'bin');
export const temporalCliPath = join(toolsDir, 'temporal');
export const temporalTestServerPath = join(toolsDir, 'temporal-test-server');
