// Bundles the compiled workflows for `npm run build`: `node scripts/bundle-workflows.mjs <workflows entry> <output>`.
import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';
import { sharedWorkflowModules } from '../src/use-cases/temporal/shared-workflow-modules.mjs';

const [workflowsPath, output] = process.argv.slice(2);
const { code } = await bundleWorkflowCode({
  workflowsPath,
  preloadModules: sharedWorkflowModules(workflowsPath),
  logger: new DefaultLogger('WARN'),
});
writeFileSync(output, code);
