import { join } from 'node:path';
import { projectRoot } from './project-root.ts';

/** Where scripts/setup.mjs installs the Temporal CLI and test server wheels. */
export const toolsDir = join(projectRoot, '.tools', 'temporal', 'bin');
export const temporalCliPath = join(toolsDir, 'temporal');
export const temporalTestServerPath = join(toolsDir, 'temporal-test-server');

/** Schemathesis (PyPI), installed by `node scripts/setup.mjs --fuzz` for the OpenAPI fuzz test. */
export const schemathesisDir = join(projectRoot, '.tools', 'schemathesis');

/** moto's S3-compatible server (PyPI), installed by `node scripts/setup.mjs --fuzz` for the storage tests. */
export const s3ServerDir = join(projectRoot, '.tools', 's3-server');

/** OpenAI's Python client (PyPI), installed by `node scripts/setup.mjs --fuzz` for the /openai/v1 tests. */
export const pythonOpenAiDir = join(projectRoot, '.tools', 'python-openai');
