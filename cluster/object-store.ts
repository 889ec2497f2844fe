// The cluster's S3-compatible store: SeaweedFS (`weed server -s3`, as docker-compose.yml's objects service runs it),
// its data under DATA_DIR so outputs outlive a restart, and the gateway's bucket created once it answers.
import { mkdir, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { CreateBucketCommand, HeadBucketCommand, S3Client } from '@aws-sdk/client-s3';
import { startSupervised, type SupervisedProcess, waitUntil } from '../src/infra/processes/supervised-process.ts';

export const storeRegion = 'us-east-1';

/** The one identity the store accepts (the cluster's, made per data directory), given to the api and worker. */
export interface StoreIdentity {
  accessKeyId: string;
  secretAccessKey: string;
}

/** The store's internal listeners; only the S3 port is for others. */
export interface StorePorts {
  s3: number;
  s3Grpc: number;
  master: number;
  masterGrpc: number;
  volume: number;
  volumeGrpc: number;
  filer: number;
  filerGrpc: number;
}

/** The S3 port as configured; the others as `pick` gives them. */
export async function storePorts(s3: number, pick: (count: number) => Promise<number[]>): Promise<StorePorts> {
  const [s3Grpc, master, masterGrpc, volume, volumeGrpc, filer, filerGrpc] = (await pick(7)) as [
    number,
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  return { s3, s3Grpc, master, masterGrpc, volume, volumeGrpc, filer, filerGrpc };
}

export const storeArgs = (dataDir: string, ports: StorePorts, identityFile: string) => [
  'server',
  `-dir=${dataDir}`,
  '-ip=127.0.0.1',
  '-ip.bind=127.0.0.1',
  `-master.port=${ports.master}`,
  `-master.port.grpc=${ports.masterGrpc}`,
  // Nobody outside this machine is to be told about it.
  '-master.telemetry=false',
  `-volume.port=${ports.volume}`,
  `-volume.port.grpc=${ports.volumeGrpc}`,
  // It would keep serving 10 s after a stop for other masters to notice; there is one master, in this process.
  '-volume.preStopSeconds=0',
  '-filer',
  `-filer.port=${ports.filer}`,
  `-filer.port.grpc=${ports.filerGrpc}`,
  '-s3',
  `-s3.port=${ports.s3}`,
  `-s3.port.grpc=${ports.s3Grpc}`,
  // Without an identity SeaweedFS would take any credentials from anyone on this machine.
  `-s3.config=${identityFile}`,
  // Its Iceberg and Lance catalogs listen on fixed ports by default; the gateway needs neither.
  '-s3.port.iceberg=0',
  '-s3.port.lance=0',
];

/**
 * SeaweedFS leaves a local socket per listener in the temporary folder (`seaweedfs-<service>[-grpc]-<port>.sock`):
 * those of this run's ports are removed once it has stopped, or each start would add more.
 */
async function removeSockets(ports: StorePorts): Promise<void> {
  const ours = new Set(Object.values(ports).map(String));
  const names = await readdir(tmpdir()).catch(() => [] as string[]);
  const sockets = names.filter((name) => ours.has(/^seaweedfs-[a-z-]+-(\d+)\.sock$/.exec(name)?.[1] ?? ''));
  await Promise.all(sockets.map((name) => rm(join(tmpdir(), name), { force: true })));
}

/** SeaweedFS's identity file: this one identity, allowed everything (only its owner may read it). */
async function writeIdentityFile(file: string, identity: StoreIdentity): Promise<void> {
  const credentials = [{ accessKey: identity.accessKeyId, secretKey: identity.secretAccessKey }];
  const actions = ['Admin', 'Read', 'List', 'Tagging', 'Write'];
  await writeFile(file, JSON.stringify({ identities: [{ name: 'gateway', credentials, actions }] }), { mode: 0o600 });
}

const clientFor = (endpoint: string, identity: StoreIdentity) =>
  new S3Client({ endpoint, region: storeRegion, forcePathStyle: true, credentials: identity });

/** Creates the bucket unless it is there; false while the store cannot answer yet. */
async function bucketReady(client: S3Client, bucket: string): Promise<boolean> {
  try {
    await client.send(new HeadBucketCommand({ Bucket: bucket }));
    return true;
  } catch (error) {
    if ((error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode !== 404) return false;
  }
  await client.send(new CreateBucketCommand({ Bucket: bucket }));
  return true;
}

export async function startObjectStore(options: {
  binary: string;
  dataDir: string;
  logDir: string;
  ports: StorePorts;
  bucket: string;
  identity: StoreIdentity;
}): Promise<{ process: SupervisedProcess; endpoint: string }> {
  await mkdir(options.dataDir, { recursive: true });
  const identityFile = join(options.dataDir, 's3-identities.json');
  await writeIdentityFile(identityFile, options.identity);
  const store = await startSupervised({
    name: 'objects',
    command: options.binary,
    args: storeArgs(options.dataDir, options.ports, identityFile),
    // It would take the operator's own AWS keys, if set, as one more identity.
    env: { ...process.env, AWS_ACCESS_KEY_ID: '', AWS_SECRET_ACCESS_KEY: '' },
    cwd: options.dataDir,
    logFile: join(options.logDir, 'objects.log'),
  });
  void store.exited.then(() => removeSockets(options.ports));
  const endpoint = `http://127.0.0.1:${options.ports.s3}`;
  const client = clientFor(endpoint, options.identity);
  try {
    // The S3 gateway answers once master, volume server and filer have found each other.
    await waitUntil(
      store,
      `serving bucket ${options.bucket} on ${endpoint}`,
      () => bucketReady(client, options.bucket),
      60_000,
    );
  } catch (error) {
    await store.stop(5_000);
    throw error;
  } finally {
    client.destroy();
  }
  return { process: store, endpoint };
}
