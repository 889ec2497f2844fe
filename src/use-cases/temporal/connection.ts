// The one way every part reaches Temporal (the api's client, the worker, the schedules, genctl and its replays):
// the configured address with the profile's TLS, API key and metadata (src/config/temporal-profile.ts).
import type { TemporalConfig } from '../../config/config.ts';

export type TemporalTarget = Pick<TemporalConfig, 'address' | 'namespace' | 'connection'>;

/** Options for Connection and NativeConnection; both take the same address, TLS, API key and metadata. */
export function connectOptions(temporal: TemporalTarget) {
  if (!temporal.address) throw new Error('Temporal has no address (TEMPORAL_ADDRESS, or a profile that names one)');
  return { address: temporal.address, ...temporal.connection };
}

/** The target of a dev server this process started: plaintext, whatever the profile says of the managed server. */
export const embeddedTarget = (temporal: TemporalTarget, address: string): TemporalTarget => ({
  address,
  namespace: temporal.namespace,
  connection: {},
});
