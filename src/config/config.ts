// The one place that reads the environment. Every variable is documented in .env.example; a bad value stops
// the start with a message naming the variable. The variables (env.ts) are checked by their names, then handed
// out in sections by feature (sections.ts).
import { type Chain, chains } from '../domain/values.ts';
import { developmentKeyProblems } from './development-keys.ts';
import { developmentSigningKeysSecret, type Env, envSchema } from './env.ts';
import { type Config, type DatabaseConfig, type ServerConfig, toSections } from './sections.ts';
import { type TemporalProfile, temporalProfileOf } from './temporal-profile.ts';

export {
  developmentDepositMnemonic,
  developmentDepositXpub,
  developmentFacilitatorKey,
  developmentKeyedTaskIdSecret,
  developmentPayTo,
  developmentTaskIdSecret,
  type Role,
  roles,
} from './env.ts';
export type * from './sections.ts';

/** The environment variables the configuration reads (each documented in .env.example). */
export const configKeys = Object.keys(envSchema.shape) as (keyof Env)[];

export class ConfigError extends Error {
  override name = 'ConfigError';
}

/** Reads and validates the environment; `--role <role>` on the command line overrides GATEWAY_ROLE. */
export function loadConfig(env: NodeJS.ProcessEnv = process.env, argv: string[] = process.argv.slice(2)): Config {
  const values: Record<string, string | undefined> = {};
  for (const key of configKeys) {
    const value = env[key];
    if (value !== undefined && value !== '') values[key] = value;
  }
  const roleFlag = argv.indexOf('--role');
  if (roleFlag >= 0) values.GATEWAY_ROLE = argv[roleFlag + 1] ?? '';

  const parsed = envSchema.safeParse(values);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration — ${problems.join('; ')}`);
  }
  const config = parsed.data;
  const temporalProfile = readTemporalProfile(config);
  // A single role joins a deployment that runs elsewhere; only the all-in-one role embeds infrastructure.
  if (config.GATEWAY_ROLE !== 'all') {
    const given = { DATABASE_URL: config.DATABASE_URL, TEMPORAL_ADDRESS: temporalProfile.address };
    for (const [key, value] of Object.entries(given)) {
      if (!value)
        throw new ConfigError(`Invalid configuration — ${key}: required when GATEWAY_ROLE is ${config.GATEWAY_ROLE}`);
    }
  }
  if (config.STORAGE_DRIVER === 's3' && !config.S3_BUCKET)
    throw new ConfigError('Invalid configuration — S3_BUCKET: required when STORAGE_DRIVER is s3');
  if (config.STORAGE_PRESIGNED_URLS && config.STORAGE_DRIVER !== 's3')
    throw new ConfigError(
      'Invalid configuration — STORAGE_PRESIGNED_URLS: only with STORAGE_DRIVER=s3 (the api serves local files itself)',
    );
  if (config.NODE_ENV === 'production' && !chains.some((chain) => config[rpcUrlKey(chain)])) {
    throw new ConfigError(
      'Invalid configuration — BASE_RPC_URL, POLYGON_RPC_URL, ETHEREUM_RPC_URL: production needs at least one real chain; the local development chain is not allowed',
    );
  }
  // Public keys stand in for the operator's own only on the local chain: anywhere real, they would give its money away.
  const publicKeys = developmentKeyProblems(config);
  if (publicKeys.length > 0) throw new ConfigError(`Invalid configuration — ${publicKeys.join('; ')}`);
  const unset = productionProblems(config);
  if (unset.length > 0) throw new ConfigError(`Invalid configuration — ${unset.join('; ')}`);
  return toSections(config, temporalProfile);
}

/** What production must set itself: what development derives from the request, or takes from a public default. */
function productionProblems(env: Env): string[] {
  if (env.NODE_ENV !== 'production') return [];
  const problems: string[] = [];
  // Receipts, OAuth and every link name this address; a request's own Host is trusted only in development.
  if (!env.PUBLIC_BASE_URL)
    problems.push(
      'PUBLIC_BASE_URL: required in production (the address clients reach this server at, e.g. https://gateway.example.com)',
    );
  // Tokens signed with a secret nobody configured would stop verifying at the next start, and on every other process.
  if (!env.OAUTH_TOKEN_SECRET)
    problems.push(
      'OAUTH_TOKEN_SECRET: required in production; set a random secret of 32 characters or more (openssl rand -hex 32)',
    );
  if (env.SIGNING_KEYS_SECRET === developmentSigningKeysSecret)
    problems.push(
      'SIGNING_KEYS_SECRET: the development secret is public, not allowed in production; set a random secret of 32 characters or more',
    );
  return problems;
}

/** The Temporal connection's profile; a file that cannot be read or lacks the profile stops the start. */
function readTemporalProfile(env: Env): TemporalProfile {
  try {
    return temporalProfileOf(env);
  } catch (error) {
    const reason = error instanceof Error ? error.message : String(error);
    throw new ConfigError(`Invalid configuration — TEMPORAL_CONFIG_FILE, TEMPORAL_PROFILE, TEMPORAL_TLS_*: ${reason}`);
  }
}

export const rpcUrlKey = (chain: Chain) => `${chain.toUpperCase() as Uppercase<Chain>}_RPC_URL` as const;

/** The URL of the embedded PostgreSQL that the all-in-one role starts (genctl uses it when DATABASE_URL is unset). */
export function embeddedDatabaseUrl(database: Pick<DatabaseConfig, 'embeddedPort'>): string {
  return `postgresql://gateway:gateway@127.0.0.1:${database.embeddedPort}/gateway`;
}

/**
 * The links' base URL where no request names one (webhooks, stored outputs, the banner), without a trailing slash:
 * PUBLIC_BASE_URL, else localhost at PORT (development only: production requires PUBLIC_BASE_URL).
 */
export function publicBaseUrl(server: Pick<ServerConfig, 'publicBaseUrl' | 'port'>): string {
  return server.publicBaseUrl?.replace(/\/+$/, '') ?? `http://localhost:${server.port}`;
}

/** The public URL of an API path (`/generations`, …) under a base: what an x402 offer or a receipt names. */
export const publicApiUrl = (base: string, path: string) => `${base}/api/v1${path}`;

/** The base URL an API URL of publicApiUrl's names: whose did:web signs what is said about it. */
export const apiUrlBase = (apiUrl: string) => apiUrl.slice(0, apiUrl.indexOf('/api/v1/'));

/**
 * How SHUTDOWN_GRACE_SECONDS is shared out, in stop order: requests in flight may finish (then get 503), the
 * worker's activities may finish (then are cancelled) until the worker is cut off, and what is left stops the
 * processes we run. The process exits when the whole grace time is up, whatever is still running.
 */
export function shutdownBudget(server: Pick<ServerConfig, 'shutdownGraceSeconds'>) {
  const graceMs = server.shutdownGraceSeconds * 1000;
  return {
    graceMs,
    requestsMs: Math.round(graceMs * 0.3),
    activitiesMs: Math.round(graceMs * 0.2),
    workerMs: Math.round(graceMs * 0.35),
  };
}
