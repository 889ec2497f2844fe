// A worker thread that offers GET requests open loop (read-load.ts): the load generator off the service's thread,
// as a real client is, so its own work (sending, reading answers) neither delays nor is delayed by the service's.
import { parentPort, workerData } from 'node:worker_threads';
import { openLoop } from './load.ts';
import type { ReadLoad } from './read-load.ts';

const { url, headers, rate, warmUpSeconds, seconds } = workerData as ReadLoad;
const get = async () => {
  const response = await fetch(url, { headers });
  if (response.status !== 200) throw new Error(`GET ${url} answered ${response.status}`);
  await response.arrayBuffer();
};
await openLoop(rate, warmUpSeconds, get);
parentPort!.postMessage(await openLoop(rate, seconds, get));
