// The ports a cluster listens on for others, each named by its setting: checked free before anything starts.
import type { Config } from '../src/config/config.ts';
import type { ListenPort } from '../src/infra/ports.ts';

export function clusterPublicPorts(config: Config): ListenPort[] {
  return [
    { setting: 'PORT', port: config.server.port, host: config.server.host, listener: 'the load balancer' },
    {
      setting: 'EMBEDDED_POSTGRES_PORT',
      port: config.database.embeddedPort,
      host: '127.0.0.1',
      listener: 'PostgreSQL',
    },
    { setting: 'CLUSTER_TEMPORAL_PORT', port: config.cluster.temporalPort, host: '127.0.0.1', listener: 'Temporal' },
    {
      setting: 'TEMPORAL_UI_PORT',
      port: config.temporal.devServer.uiPort,
      host: '127.0.0.1',
      listener: 'the Temporal UI',
    },
    { setting: 'CLUSTER_S3_PORT', port: config.cluster.s3Port, host: '127.0.0.1', listener: 'the object store' },
  ];
}
