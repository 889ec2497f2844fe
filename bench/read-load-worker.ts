// A worker thread that offers GET requests open loop (read-load.ts): the load generator off the service's thread,
// as a real client is, so its own work (sending, reading answers) neither delays nor is delayed by the service's.
// node:http with a keep-alive agent, not fetch: a lighter client, whose own pauses (its garbage collection) stay
// out of the latencies it measures.
import { Agent, get as httpGet } from 'node:http';
import { parentPort, workerData } from 'node:worker_threads';
import { openLoop } from './load.ts';
import type { ReadLoad } from './read-load.ts';

const { url, headers, rate, warmUpSeconds, seconds } = workerData as ReadLoad;
const agent = new Agent({ keepAlive: true, maxSockets: 64 });
const get = () =>
  new Promise<void>((resolve, reject) => {
    httpGet(url, { headers, agent }, (response) => {
      response.on('data', () => {});
      response.on('error', reject);
      response.on('end', () =>
        response.statusCode === 200 ? resolve() : reject(new Error(`GET ${url} answered ${response.statusCode}`)),
      );
    }).on('error', reject);
  });
await openLoop(rate, warmUpSeconds, get);
parentPort!.postMessage(await openLoop(rate, seconds, get));
agent.destroy();
