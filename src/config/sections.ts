// The configuration by feature: each module receives the section it needs (`config.x402`, `config.providers.fal`),
// never the whole. Each key names its variable; env.ts holds the variables' defaults and validation.
import { type Env, x402EnabledOf } from './env.ts';
import type { TemporalProfile } from './temporal-profile.ts';

const chainOf = (rpcUrl: string | undefined, usdcAddress: `0x${string}`, confirmations: number) => ({
  rpcUrl,
  usdcAddress,
  confirmations,
});

const temporalOf = (env: Env, profile: TemporalProfile) => ({
  /** TEMPORAL_ADDRESS, else the profile's (TEMPORAL_CONFIG_FILE); unset, the all-in-one role embeds a dev server. */
  address: profile.address,
  namespace: profile.namespace ?? 'default',
  /** TLS, API key and gRPC metadata for `address` (connectOptions in src/use-cases/temporal/connection.ts). */
  connection: profile.connection,
  taskQueue: env.TEMPORAL_TASK_QUEUE,
  webhookTaskQueue: env.TEMPORAL_WEBHOOK_TASK_QUEUE,
  workflowCacheSize: env.WORKFLOW_CACHE_SIZE,
  /** The embedded dev server the all-in-one role starts when TEMPORAL_ADDRESS is unset. */
  devServer: {
    port: env.TEMPORAL_DEV_SERVER_PORT,
    uiPort: env.TEMPORAL_UI_PORT,
    cliPath: env.TEMPORAL_CLI_PATH,
    transferPollRps: env.TEMPORAL_DEV_TRANSFER_POLL_RPS,
    sqliteWal: env.TEMPORAL_DEV_SQLITE_WAL,
    taskQueuePartitions: env.TEMPORAL_DEV_TASK_QUEUE_PARTITIONS,
  },
});

const chainsOf = (env: Env) => ({
  /** DEPOSIT_CHAINS: the chains taken when they have an RPC URL. */
  enabled: env.DEPOSIT_CHAINS,
  base: chainOf(env.BASE_RPC_URL, env.BASE_USDC_ADDRESS, env.BASE_CONFIRMATIONS),
  polygon: chainOf(env.POLYGON_RPC_URL, env.POLYGON_USDC_ADDRESS, env.POLYGON_CONFIRMATIONS),
  ethereum: chainOf(env.ETHEREUM_RPC_URL, env.ETHEREUM_USDC_ADDRESS, env.ETHEREUM_CONFIRMATIONS),
  local: {
    name: env.LOCAL_CHAIN_NAME,
    confirmations: env.LOCAL_CHAIN_CONFIRMATIONS,
    blockTimeSeconds: env.LOCAL_CHAIN_BLOCK_TIME_SECONDS,
    rpcUrl: env.LOCAL_CHAIN_RPC_URL,
    chainId: env.LOCAL_CHAIN_ID,
  },
});

const providersOf = (env: Env) => ({
  pollIntervalMs: env.PROVIDER_POLL_INTERVAL_MS,
  pollMaxIntervalMs: env.PROVIDER_POLL_MAX_INTERVAL_MS,
  callbackBaseUrl: env.UPSTREAM_CALLBACK_BASE_URL,
  queueTimeoutSeconds: env.PROVIDER_QUEUE_TIMEOUT_SECONDS,
  allowPrivateOutputUrls: env.ALLOW_PRIVATE_OUTPUT_URLS,
  local: {
    concurrency: env.LOCAL_CONCURRENCY,
  },
  fal: {
    key: env.FAL_KEY,
    queueUrl: env.FAL_QUEUE_URL,
    jwksUrl: env.FAL_JWKS_URL,
    userId: env.FAL_USER_ID,
    timeoutSeconds: env.FAL_TIMEOUT_SECONDS,
    concurrency: env.FAL_CONCURRENCY,
  },
  replicate: {
    apiToken: env.REPLICATE_API_TOKEN,
    baseUrl: env.REPLICATE_BASE_URL,
    webhookSecret: env.REPLICATE_WEBHOOK_SECRET,
    timeoutSeconds: env.REPLICATE_TIMEOUT_SECONDS,
    concurrency: env.REPLICATE_CONCURRENCY,
  },
  openai: {
    apiKey: env.OPENAI_API_KEY,
    baseUrl: env.OPENAI_BASE_URL,
    timeoutSeconds: env.OPENAI_TIMEOUT_SECONDS,
    concurrency: env.OPENAI_CONCURRENCY,
  },
});

const serverOf = (env: Env) => ({
  role: env.GATEWAY_ROLE,
  nodeEnv: env.NODE_ENV,
  host: env.HOST,
  port: env.PORT,
  publicBaseUrl: env.PUBLIC_BASE_URL,
  logLevel: env.LOG_LEVEL,
  jsonBodyLimit: env.JSON_BODY_LIMIT,
  dataDir: env.DATA_DIR,
  shutdownGraceSeconds: env.SHUTDOWN_GRACE_SECONDS,
  trustProxy: env.TRUST_PROXY,
});

const depositsOf = (env: Env) => ({
  xpub: env.DEPOSIT_XPUB,
  waitSeconds: env.DEPOSIT_WAIT_SECONDS,
  receiptWaitSeconds: env.DEPOSIT_RECEIPT_WAIT_SECONDS,
  pendingClaimsPerAccount: env.DEPOSIT_PENDING_CLAIMS_PER_ACCOUNT,
  scanIntervalSeconds: env.DEPOSIT_SCAN_INTERVAL_SECONDS,
  scanLookbackBlocks: env.DEPOSIT_SCAN_LOOKBACK_BLOCKS,
  scanMaxBlocks: env.DEPOSIT_SCAN_MAX_BLOCKS,
});

const x402Of = (env: Env) => ({
  enabled: x402EnabledOf(env),
  payTo: env.X402_PAY_TO,
  facilitatorUrl: env.X402_FACILITATOR_URL,
  facilitatorPrivateKey: env.X402_FACILITATOR_PRIVATE_KEY,
  maxTasksPerPayer: env.X402_MAX_TASKS_PER_PAYER,
  taskIdSecret: env.X402_TASK_ID_SECRET,
  schemes: env.X402_SCHEMES,
});

const accountsOf = (env: Env) => ({
  apiKeyCacheSeconds: env.API_KEY_CACHE_SECONDS,
  trialCreditUsd: env.TRIAL_CREDIT_USD,
  trialCreditsPerAddressPerDay: env.TRIAL_CREDITS_PER_ADDRESS_PER_DAY,
  trialCreditsPerDay: env.TRIAL_CREDITS_PER_DAY,
  registrationCapPerAddress: env.REGISTRATION_CAP_PER_ADDRESS,
  registrationCapWindowMinutes: env.REGISTRATION_CAP_WINDOW_MINUTES,
});

const uploadsOf = (env: Env) => ({
  maxImageBytes: env.UPLOAD_MAX_IMAGE_BYTES,
  maxAudioBytes: env.UPLOAD_MAX_AUDIO_BYTES,
  maxVideoBytes: env.UPLOAD_MAX_VIDEO_BYTES,
  ttlSeconds: env.UPLOAD_TTL_SECONDS,
  quotaBytes: env.UPLOAD_QUOTA_BYTES,
  expiryIntervalSeconds: env.UPLOAD_EXPIRY_INTERVAL_SECONDS,
});

const storageOf = (env: Env) => ({
  driver: env.STORAGE_DRIVER,
  s3: { bucket: env.S3_BUCKET ?? '', keyPrefix: env.S3_KEY_PREFIX, forcePathStyle: env.S3_FORCE_PATH_STYLE },
  presignedUrls: env.STORAGE_PRESIGNED_URLS,
  presignedUrlSeconds: env.STORAGE_PRESIGNED_URL_SECONDS,
});

const metricsOf = (env: Env) => ({
  port: env.METRICS_PORT,
  host: env.METRICS_HOST,
  token: env.METRICS_TOKEN,
  temporalPort: env.TEMPORAL_METRICS_PORT,
});

const clusterOf = (env: Env) => ({
  apiProcesses: env.CLUSTER_API_PROCESSES,
  workerProcesses: env.CLUSTER_WORKER_PROCESSES,
  temporalPort: env.CLUSTER_TEMPORAL_PORT,
  s3Port: env.CLUSTER_S3_PORT,
});

export function toSections(env: Env, temporalProfile: TemporalProfile) {
  return {
    /** The process and its HTTP listener. */
    server: serverOf(env),
    database: {
      url: env.DATABASE_URL,
      embeddedPort: env.EMBEDDED_POSTGRES_PORT,
    },
    temporal: temporalOf(env, temporalProfile),
    /** Where deposits and x402 payments are read: each chain, and the local development chain. */
    chains: chainsOf(env),
    deposits: depositsOf(env),
    /** The task reconciler's schedule. */
    reconciler: {
      intervalSeconds: env.TASK_RECONCILE_INTERVAL_SECONDS,
      afterSeconds: env.TASK_RECONCILE_AFTER_SECONDS,
    },
    x402: x402Of(env),
    /** Offers and receipts: the secret their signing keys are kept under. */
    receipts: { signingKeysSecret: env.SIGNING_KEYS_SECRET },
    /** API keys and agent registration. */
    accounts: accountsOf(env),
    /** OAuth on /mcp: the token secret (unset: the runtime makes a development one) and the endpoints' limits. */
    oauth: {
      tokenSecret: env.OAUTH_TOKEN_SECRET,
      requestsPerClient: env.OAUTH_REQUESTS_PER_CLIENT,
      requestsPerAddress: env.OAUTH_REQUESTS_PER_ADDRESS,
      sweepIntervalSeconds: env.OAUTH_SWEEP_INTERVAL_SECONDS,
    },
    rateLimits: {
      windowSeconds: env.RATE_LIMIT_WINDOW_SECONDS,
      admissions: env.RATE_LIMIT_ADMISSIONS,
      reads: env.RATE_LIMIT_READS,
      depositClaims: env.RATE_LIMIT_DEPOSIT_CLAIMS,
    },
    /** The inputs a request names by URL, downloaded at admission (measured) and by the provider activities. */
    inputs: {
      allowPrivateUrls: env.ALLOW_PRIVATE_INPUT_URLS,
      maxBytes: env.INPUT_MAX_BYTES,
      measureTimeoutSeconds: env.INPUT_MEASURE_TIMEOUT_SECONDS,
    },
    uploads: uploadsOf(env),
    /** How long stored outputs are kept, how often the sweep deletes those past it, and what keys their links. */
    outputs: {
      retentionDays: env.OUTPUT_RETENTION_DAYS,
      expiryIntervalSeconds: env.OUTPUT_EXPIRY_INTERVAL_SECONDS,
      taskIdSecret: env.TASK_ID_SECRET,
    },
    storage: storageOf(env),
    webhooks: {
      allowPrivateUrls: env.ALLOW_PRIVATE_WEBHOOK_URLS,
    },
    /** The task event streams (SSE). */
    events: {
      heartbeatMs: env.EVENT_STREAM_HEARTBEAT_SECONDS * 1000,
      maxStreamMs: env.EVENT_STREAM_MAX_SECONDS * 1000,
    },
    /** How many requests held open (event streams and waits) one api process takes at once. */
    longLived: {
      perAccount: env.LONG_LIVED_PER_ACCOUNT,
      perAddress: env.LONG_LIVED_PER_ADDRESS,
      perProcess: env.LONG_LIVED_PER_PROCESS,
    },
    providers: providersOf(env),
    tracing: {
      otlpEndpoint: env.OTEL_EXPORTER_OTLP_ENDPOINT,
      serviceName: env.OTEL_SERVICE_NAME,
    },
    metrics: metricsOf(env),
    /** `npm run cluster`: the scale-out layout as processes on this machine. */
    cluster: clusterOf(env),
  };
}

export type Config = ReturnType<typeof toSections>;
export type ServerConfig = Config['server'];
export type DatabaseConfig = Config['database'];
export type TemporalConfig = Config['temporal'];
export type ChainsConfig = Config['chains'];
export type DepositsConfig = Config['deposits'];
export type ReconcilerConfig = Config['reconciler'];
export type X402Config = Config['x402'];
export type AccountsConfig = Config['accounts'];
export type OAuthConfig = Config['oauth'];
export type RateLimitsConfig = Config['rateLimits'];
export type InputsConfig = Config['inputs'];
export type UploadsConfig = Config['uploads'];
export type OutputsConfig = Config['outputs'];
export type WebhooksConfig = Config['webhooks'];
export type EventsConfig = Config['events'];
export type LongLivedConfig = Config['longLived'];
export type ProvidersConfig = Config['providers'];
export type TracingConfig = Config['tracing'];
export type MetricsConfig = Config['metrics'];
export type ClusterConfig = Config['cluster'];
/** One chain's settings as configured (its RPC URL unset: not enabled). */
export type ChainConfig = ReturnType<typeof chainOf>;
export type StorageConfig = Config['storage'];
