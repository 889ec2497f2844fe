// Bundles the compiled workflows for `npm run build`: `node scripts/bundle-workflows.mjs <workflows entry> <output>`.
import { writeFileSync } from 'node:fs';
import { bundleWorkflowCode, DefaultLogger } from '@temporalio/worker';

const [workflowsPath, output] = process.argv.slice(2);
const { code } = await bundleWorkflowCode({ workflowsPath, logger: new DefaultLogger('WARN') });
writeFileSync(output, code);
