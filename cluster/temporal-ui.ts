// Temporal's Web UI server (github.com/temporalio/ui-server, its assets built in) with a configuration of ours: bound
// to this machine only, pointed at the cluster's frontend, and never fetching Temporal's news from the internet.
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startSupervised, type SupervisedProcess, waitUntil } from '../src/infra/processes/supervised-process.ts';

export function temporalUiConfig(options: {
  temporalAddress: string;
  port: number;
  corsOrigin: string;
  namespace: string;
}) {
  return [
    `temporalGrpcAddress: ${options.temporalAddress}`,
    'host: 127.0.0.1',
    `port: ${options.port}`,
    'enableUi: true',
    `defaultNamespace: ${options.namespace}`,
    'disableNewsFetch: true',
    'cors:',
    // Plain http on localhost: a Secure cookie would never come back.
    '  cookieInsecure: true',
    '  allowOrigins:',
    `    - "${options.corsOrigin}"`,
    'auth:',
    '  enabled: false',
    '',
  ].join('\n');
}

export async function startTemporalUi(options: {
  binary: string;
  temporalAddress: string;
  port: number;
  /** The gateway's public address: its pages link into the UI. */
  corsOrigin: string;
  namespace: string;
  dataDir: string;
  logDir: string;
}): Promise<{ process: SupervisedProcess; url: string }> {
  await mkdir(join(options.dataDir, 'config'), { recursive: true });
  await writeFile(join(options.dataDir, 'config', 'cluster.yaml'), temporalUiConfig(options));
  const ui = await startSupervised({
    name: 'temporal-ui',
    command: options.binary,
    args: ['--root', options.dataDir, '--config', 'config', '--env', 'cluster', 'start'],
    cwd: options.dataDir,
    env: { PATH: process.env.PATH },
    logFile: join(options.logDir, 'temporal-ui.log'),
  });
  const url = `http://localhost:${options.port}`;
  try {
    await waitUntil(ui, `serving ${url}`, async () => (await fetch(`http://127.0.0.1:${options.port}/`)).ok, 30_000);
  } catch (error) {
    await ui.stop(2_000);
    throw error;
  }
  return { process: ui, url };
}
