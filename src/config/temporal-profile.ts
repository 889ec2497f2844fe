// Temporal Cloud and other managed servers: the connection is read through the SDK's environment configuration
// (@temporalio/envconfig), so TEMPORAL_ADDRESS, TEMPORAL_NAMESPACE, TEMPORAL_API_KEY, TEMPORAL_TLS_* and profiles in
// a TOML file (TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE) mean what they mean to the Temporal CLI and the other SDKs.
import { loadClientConnectConfig } from '@temporalio/envconfig';
import type { NativeConnectionOptions } from '@temporalio/worker';
import type { Env } from './env.ts';

/** What a connection adds to the address: TLS (certificates read once, here), an API key, gRPC metadata. */
export type TemporalConnectionSettings = Pick<NativeConnectionOptions, 'tls' | 'apiKey' | 'metadata'>;

export interface TemporalProfile {
  address?: string;
  namespace?: string;
  connection: TemporalConnectionSettings;
}

// The variables envconfig reads, as the configuration validated them (a variable set empty counts as unset).
const envconfigKeys = [
  'TEMPORAL_ADDRESS',
  'TEMPORAL_NAMESPACE',
  'TEMPORAL_API_KEY',
  'TEMPORAL_TLS',
  'TEMPORAL_TLS_CLIENT_CERT_PATH',
  'TEMPORAL_TLS_CLIENT_CERT_DATA',
  'TEMPORAL_TLS_CLIENT_KEY_PATH',
  'TEMPORAL_TLS_CLIENT_KEY_DATA',
  'TEMPORAL_TLS_SERVER_CA_CERT_PATH',
  'TEMPORAL_TLS_SERVER_CA_CERT_DATA',
  'TEMPORAL_TLS_SERVER_NAME',
] as const satisfies (keyof Env)[];

/**
 * The profile: TEMPORAL_CONFIG_FILE's profile TEMPORAL_PROFILE (else "default"), when a file is named, overridden by
 * the variables. No file is read unless named, so a Temporal CLI profile in the home folder never redirects
 * `npm start` from its embedded dev server.
 */
export function temporalProfileOf(env: Env): TemporalProfile {
  const given: Record<string, string> = {};
  for (const key of envconfigKeys) {
    const value = env[key];
    if (value !== undefined) given[key] = String(value);
  }
  const { connectionOptions, namespace } = loadClientConnectConfig({
    profile: env.TEMPORAL_PROFILE,
    ...(env.TEMPORAL_CONFIG_FILE ? { configSource: { path: env.TEMPORAL_CONFIG_FILE } } : { disableFile: true }),
    overrideEnvVars: given,
  });
  const { address, tls, apiKey, metadata } = connectionOptions;
  return {
    address,
    namespace,
    connection: {
      ...(tls !== undefined && { tls }),
      ...(apiKey !== undefined && { apiKey }),
      ...(metadata !== undefined && { metadata }),
    },
  };
}
