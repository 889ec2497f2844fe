// NODE_OPTIONS of the service's processes, which `npm start` and `npm run cluster` set: a heap cap by default
// (docs/deploying.md, Memory: V8 sizes its heap from the machine's memory and lets garbage pile up far past what is
// live), unless NODE_OPTIONS names one; and the workflow thread's preload (scripts/workflow-thread-preload.cjs).
import { fileURLToPath } from 'node:url';

export const defaultHeapCapMb = 256;
export const workflowThreadPreload = fileURLToPath(new URL('./workflow-thread-preload.cjs', import.meta.url));

/** NODE_OPTIONS for a service process: the caller's, with the default cap unless they set one, and the preload. */
export function serviceNodeOptions(nodeOptions = '') {
  const cap = /--max-old-space-size/.test(nodeOptions) ? '' : `--max-old-space-size=${defaultHeapCapMb}`;
  const preload = nodeOptions.includes(workflowThreadPreload)
    ? ''
    : `--require ${JSON.stringify(workflowThreadPreload)}`;
  return [nodeOptions, cap, preload].filter(Boolean).join(' ');
}

// `npm start` and `npm run cluster` print it into their command line: NODE_OPTIONS="$(node scripts/service-node-options.mjs)".
if (import.meta.url === `file://${process.argv[1]}`) console.log(serviceNodeOptions(process.env.NODE_OPTIONS));
