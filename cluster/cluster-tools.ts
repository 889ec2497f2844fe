// The programs `npm run cluster` runs that no registry ships as binaries: Temporal's own server, its SQL schema tool
// and Web UI, SeaweedFS and Caddy (the load balancer), each built from the Go module proxy into .tools/ (see versions.ts).
import { join } from 'node:path';
import { binPath, ensureGoBuild, type GoBuild } from './go-build.ts';
import { caddyVersion, goToolchain, seaweedfsVersion, temporalServerVersion, temporalUiVersion } from './versions.ts';
import { projectRoot } from '../src/infra/project-root.ts';

const tools = join(projectRoot, '.tools');

export const temporalServerBuild: GoBuild = {
  what: 'the Temporal server and its SQL tool',
  dir: join(tools, 'temporal-server'),
  module: 'go.temporal.io/server',
  version: temporalServerVersion,
  toolchain: goToolchain,
  binaries: { 'cmd/server': 'temporal-server', 'cmd/tools/sql': 'temporal-sql-tool' },
  // The versioned PostgreSQL schema the SQL tool applies (setup-schema, then update-schema).
  files: { 'schema/postgresql/v12': 'schema/postgresql/v12' },
};

export const temporalUiBuild: GoBuild = {
  what: 'the Temporal Web UI',
  dir: join(tools, 'temporal-ui'),
  module: 'github.com/temporalio/ui-server/v2',
  version: temporalUiVersion,
  toolchain: goToolchain,
  binaries: { 'cmd/server': 'temporal-ui-server' },
};

export const seaweedfsBuild: GoBuild = {
  what: 'SeaweedFS (the S3-compatible store)',
  dir: join(tools, 'seaweedfs'),
  module: 'github.com/seaweedfs/seaweedfs',
  version: seaweedfsVersion,
  toolchain: goToolchain,
  binaries: { weed: 'weed' },
  asMainModule: true,
};

export const caddyBuild: GoBuild = {
  what: 'Caddy (the load balancer)',
  dir: join(tools, 'caddy'),
  module: 'github.com/caddyserver/caddy/v2',
  version: caddyVersion,
  toolchain: goToolchain,
  binaries: { 'cmd/caddy': 'caddy' },
};

export const clusterBuilds = [temporalServerBuild, temporalUiBuild, seaweedfsBuild, caddyBuild];

export const clusterBinaries = {
  temporalServer: binPath(temporalServerBuild, 'temporal-server'),
  temporalSqlTool: binPath(temporalServerBuild, 'temporal-sql-tool'),
  temporalSchemaDir: join(temporalServerBuild.dir, 'schema', 'postgresql', 'v12'),
  temporalUiServer: binPath(temporalUiBuild, 'temporal-ui-server'),
  weed: binPath(seaweedfsBuild, 'weed'),
  caddy: binPath(caddyBuild, 'caddy'),
};

/** Builds what is missing, one at a time (each is a heavy compile); returns seconds per build. */
export async function ensureClusterTools(log: (line: string) => void): Promise<Record<string, number>> {
  const seconds: Record<string, number> = {};
  for (const build of clusterBuilds) seconds[build.what] = await ensureGoBuild(build, log);
  return seconds;
}
