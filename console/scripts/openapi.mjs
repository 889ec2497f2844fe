// Runs console/scripts/openapi.ts with the checkout's TypeScript runner (tsx), as the root scripts do.
import { runTypeScript } from '../../scripts/run-typescript.mjs';

await runTypeScript('console/scripts/openapi.ts');
