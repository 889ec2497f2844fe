// The environment variables, exactly as .env.example documents them: names, defaults and the messages a bad value
// gets. src/config/config.ts reads them (the one reader of process.env); sections.ts gives them their shape.
import { availableParallelism } from 'node:os';
import { z } from 'zod';
import { parseUsd } from '../domain/money.ts';
import { type Chain, chains, type Tier, tiers } from '../domain/values.ts';

export const roles = ['all', 'api', 'worker'] as const;

/**
 * Development default for DEPOSIT_XPUB: m/44'/60'/0'/0 of `developmentDepositMnemonic`, a key of its own, so no
 * deposit address is one of the local chain's funded accounts (anvil's, the facilitator's). Public: production refuses it.
 */
export const developmentDepositXpub =
  'xpub6DtBfNBkbRcnvRSACsgeyGT6GFdUTfkvbij26WvXPb4Xg3brLyz3pMZUgZ7QtAjtHtUtjtsMBZb4oKmZNYtWXmZefv3cPueb2WvE8uCLReZ';
/** The development deposit key's mnemonic (BIP-39 of SHA-256("generation-gateway development deposit key")[0..16]). */
export const developmentDepositMnemonic =
  'cotton achieve rather hint lonely twenty fortune icon husband armed large fringe';
export type Role = (typeof roles)[number];

/** Development default for X402_FACILITATOR_PRIVATE_KEY: anvil's funded dev account 3 (its key is public). */
export const developmentFacilitatorKey = '0x7c852118294e51e653712a81e05800f419141751be58f605c371e15141b007a6';

/** Development default for X402_PAY_TO: m/44'/60'/2'/0/0 of the test mnemonic. Production refuses it. */
export const developmentPayTo = '0x98e503f35D0a019cB0a251aD243a4cCFCF371F46';

/** Development default for X402_TASK_ID_SECRET (public, so production refuses it). */
export const developmentTaskIdSecret = 'development-only-x402-task-id-secret-not-for-production';

/** Development default for SIGNING_KEYS_SECRET (public, so production and a real chain refuse it). */
export const developmentSigningKeysSecret = 'development-only-signing-keys-secret-not-for-production';

/** Development default for TASK_ID_SECRET (public, so production and a real chain refuse it). */
export const developmentKeyedTaskIdSecret = 'development-only-task-id-secret-not-for-production';

const port = z.coerce.number().int().min(1).max(65535);
const optionalText = z.string().trim().min(1).optional();
const byteSize = z.string().regex(/^\d+(b|kb|mb)$/i, 'expected a size such as 512kb or 1mb');
const positiveInt = z.coerce.number().int().min(1);
const usdAmount = z.string().transform((text, context) => {
  try {
    return parseUsd(text);
  } catch {
    context.addIssue({ code: 'custom', message: 'expected an amount in USD such as 1.00' });
    return z.NEVER;
  }
});
const evmAddress = z
  .string()
  .regex(/^0x[0-9a-fA-F]{40}$/, 'expected an EVM address (0x followed by 40 hex digits)')
  .transform((address) => address as `0x${string}`);
const chainList = z.string().transform((text, context) => {
  const names = text
    .split(',')
    .map((name) => name.trim())
    .filter(Boolean);
  const unknown = names.filter((name) => !(chains as readonly string[]).includes(name));
  if (unknown.length > 0 || names.length === 0) {
    context.addIssue({ code: 'custom', message: `expected a comma-separated list of ${chains.join(', ')}` });
    return z.NEVER;
  }
  return [...new Set(names)] as Chain[];
});

/** A limit per account tier: one number for every tier, or `free=60,starter=300,pro=600,enterprise=3000`. */
const tierLimits = z.string().transform((text, context): Record<Tier, number> => {
  if (/^\s*\d+\s*$/.test(text)) return Object.fromEntries(tiers.map((tier) => [tier, Number(text)])) as never;
  const pairs = text.split(',').map((entry) => /^\s*(\w+)\s*=\s*(\d+)\s*$/.exec(entry));
  const limits = Object.fromEntries(pairs.map((pair) => [pair?.[1], Number(pair?.[2])]));
  // As many pairs as tiers, and every tier among them: each tier named once, nothing else.
  if (pairs.length !== tiers.length || !tiers.every((tier) => tier in limits)) {
    const forms = tiers.map((tier) => `${tier}=<n>`).join(',');
    context.addIssue({ code: 'custom', message: `expected a number, or ${forms} (0: no limit)` });
    return z.NEVER;
  }
  return limits as Record<Tier, number>;
});

export const envSchema = z.object({
  GATEWAY_ROLE: z.enum(roles).default('all'),
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JSON_BODY_LIMIT: byteSize.default('1mb'),
  DATA_DIR: z.string().min(1).default('.data'),
  // Ctrl-C or SIGTERM ends the process within this time, whatever is running (Temporal retries what is cut short).
  SHUTDOWN_GRACE_SECONDS: positiveInt.default(30),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  EMBEDDED_POSTGRES_PORT: port.default(5433),
  TEMPORAL_ADDRESS: z
    .string()
    .regex(/^[\w.-]+:\d+$/, 'expected host:port')
    .optional(),
  // Without a default: a profile's namespace (TEMPORAL_CONFIG_FILE) applies when it is unset; else `default`.
  TEMPORAL_NAMESPACE: z.string().min(1).optional(),
  // Temporal Cloud and other managed servers, read as the Temporal SDKs read them (src/config/temporal-profile.ts).
  TEMPORAL_API_KEY: optionalText,
  TEMPORAL_TLS: z.enum(['true', 'false']).optional(),
  TEMPORAL_TLS_CLIENT_CERT_PATH: optionalText,
  TEMPORAL_TLS_CLIENT_CERT_DATA: optionalText,
  TEMPORAL_TLS_CLIENT_KEY_PATH: optionalText,
  TEMPORAL_TLS_CLIENT_KEY_DATA: optionalText,
  TEMPORAL_TLS_SERVER_CA_CERT_PATH: optionalText,
  TEMPORAL_TLS_SERVER_CA_CERT_DATA: optionalText,
  TEMPORAL_TLS_SERVER_NAME: optionalText,
  TEMPORAL_CONFIG_FILE: optionalText,
  TEMPORAL_PROFILE: optionalText,
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('gateway'),
  TEMPORAL_WEBHOOK_TASK_QUEUE: z.string().min(1).default('gateway-webhooks'),
  TEMPORAL_DEV_SERVER_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_CLI_PATH: optionalText,
  // The embedded dev server's tuning (measured in DESIGN §8): its defaults put a ≈50 ms floor under every workflow.
  TEMPORAL_DEV_TRANSFER_POLL_RPS: positiveInt.default(1000),
  TEMPORAL_DEV_SQLITE_WAL: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
  TEMPORAL_DEV_TASK_QUEUE_PARTITIONS: positiveInt.default(1),
  TRUST_PROXY: optionalText,
  DEPOSIT_XPUB: z
    .string()
    .regex(/^[xt]pub[1-9A-HJ-NP-Za-km-z]{100,112}$/, 'expected a BIP-32 extended public key (xpub…)')
    .default(developmentDepositXpub),
  DEPOSIT_CHAINS: chainList.default([...chains]),
  // Per chain: where to read it, which contract is USDC there, and how deep a deposit must be to be credited.
  BASE_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  BASE_USDC_ADDRESS: evmAddress.default('0x833589fCD6eDb6E08f4c7C32D4f71b54bdA02913'),
  BASE_CONFIRMATIONS: positiveInt.default(10),
  POLYGON_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  POLYGON_USDC_ADDRESS: evmAddress.default('0x3c499c542cEF5E3811e1192ce70d8cC03d5c3359'),
  POLYGON_CONFIRMATIONS: positiveInt.default(128),
  ETHEREUM_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  ETHEREUM_USDC_ADDRESS: evmAddress.default('0xA0b86991c6218b36c1d19D4a2e9Eb0cE3606eB48'),
  ETHEREUM_CONFIRMATIONS: positiveInt.default(12),
  // The embedded default when no chain has an RPC URL: a local anvil with a test USDC, serving this chain's name.
  LOCAL_CHAIN_NAME: z.enum(chains).default('base'),
  LOCAL_CHAIN_CONFIRMATIONS: positiveInt.default(2),
  LOCAL_CHAIN_BLOCK_TIME_SECONDS: positiveInt.default(1),
  /** Set by the runtime, never by hand: the RPC URL of the local chain it started. */
  LOCAL_CHAIN_RPC_URL: z.url({ protocol: /^https?$/ }).optional(),
  /** The local chain's EIP-155 id: Base Sepolia's by default, a network x402 v1 clients can name (anvil's is not). */
  LOCAL_CHAIN_ID: positiveInt.default(84532),
  DEPOSIT_WAIT_SECONDS: z.coerce.number().min(0).max(30).default(5),
  DEPOSIT_RECEIPT_WAIT_SECONDS: positiveInt.default(60),
  DEPOSIT_PENDING_CLAIMS_PER_ACCOUNT: positiveInt.default(5),
  DEPOSIT_SCAN_INTERVAL_SECONDS: positiveInt.default(10),
  DEPOSIT_SCAN_LOOKBACK_BLOCKS: z.coerce.number().int().min(0).default(1000),
  DEPOSIT_SCAN_MAX_BLOCKS: positiveInt.default(2000),
  // The task reconciler: how often it runs, and how long a task stays `queued` before it is looked at.
  TASK_RECONCILE_INTERVAL_SECONDS: positiveInt.default(60),
  TASK_RECONCILE_AFTER_SECONDS: positiveInt.default(600),
  // x402: pay per request with a signed USDC authorization, settled on chain only once the outputs are stored.
  // Unset: on exactly where the local development chain is what it is paid on (see x402EnabledOf).
  X402_ENABLED: z
    .enum(['true', 'false'])
    .optional()
    .transform((value) => (value === undefined ? undefined : value === 'true')),
  X402_PAY_TO: evmAddress.default(developmentPayTo),
  X402_FACILITATOR_URL: z.url({ protocol: /^https?$/ }).optional(),
  X402_FACILITATOR_PRIVATE_KEY: z
    .string()
    .regex(/^0x[0-9a-fA-F]{64}$/, 'expected a private key (0x followed by 64 hex digits)')
    .transform((key) => key as `0x${string}`)
    .default(developmentFacilitatorKey),
  X402_MAX_TASKS_PER_PAYER: positiveInt.default(5),
  X402_TASK_ID_SECRET: z.string().min(32, 'expected at least 32 characters').default(developmentTaskIdSecret),
  // Encrypts the private keys that sign offers and receipts where PostgreSQL keeps them.
  SIGNING_KEYS_SECRET: z.string().min(32, 'expected at least 32 characters').default(developmentSigningKeysSecret),
  X402_SCHEMES: z
    .string()
    .default('exact,upto')
    .transform((value) => value.split(',').map((scheme) => scheme.trim()))
    .pipe(z.array(z.enum(['exact', 'upto'])).min(1)),
  // An event stream with nothing to send writes a comment this often, so proxies and load balancers keep it open.
  EVENT_STREAM_HEARTBEAT_SECONDS: positiveInt.max(300).default(15),
  // A stream ends cleanly after this long; the client resumes with Last-Event-ID (EventSource does it itself).
  EVENT_STREAM_MAX_SECONDS: positiveInt.default(1800),
  // Requests held open (event streams, `Prefer: wait`, MCP waits) at once, counted by each api process: per account,
  // per client address (429 past either) and in all (503 past it, so a balancer tries another process).
  LONG_LIVED_PER_ACCOUNT: positiveInt.default(10),
  LONG_LIVED_PER_ADDRESS: positiveInt.default(20),
  LONG_LIVED_PER_PROCESS: positiveInt.default(1000),
  // How long an accepted API key is trusted without a database read: a revocation takes effect within it.
  API_KEY_CACHE_SECONDS: z.coerce.number().int().min(0).max(60).default(5),
  TRIAL_CREDIT_USD: usdAmount.default(1_000_000n),
  TRIAL_CREDITS_PER_ADDRESS_PER_DAY: z.coerce.number().int().min(0).default(1),
  // The whole server's trial credits per 24 hours, whatever the addresses (0: no trials at all).
  TRIAL_CREDITS_PER_DAY: z.coerce.number().int().min(0).default(100),
  REGISTRATION_CAP_PER_ADDRESS: positiveInt.default(20),
  // OAuth on /mcp: the secret its tokens and the wallet sessions' are signed with (each kind with a key derived from
  // it); unset, `npm start` makes one in DATA_DIR on first start, and production refuses to start.
  OAUTH_TOKEN_SECRET: z.string().min(32, 'expected at least 32 characters').optional(),
  // Requests per 15 minutes to each OAuth endpoint: per client and address for a client the gateway knows, else (and
  // for registrations) per address, so hosts sharing egress addresses each keep their own count.
  OAUTH_REQUESTS_PER_CLIENT: positiveInt.default(100),
  OAUTH_REQUESTS_PER_ADDRESS: positiveInt.default(100),
  // The OAuth sweep: grants whose code expired unredeemed are revoked, expired codes and refresh tokens deleted.
  OAUTH_SWEEP_INTERVAL_SECONDS: positiveInt.default(600),
  REGISTRATION_CAP_WINDOW_MINUTES: positiveInt.default(60),
  // Requests with an API key per account and window, by tier (agents and x402 payers count as free): admissions
  // (POST /generations) and every other call with a key ("reads": tasks, balances, quotes, …).
  RATE_LIMIT_WINDOW_SECONDS: positiveInt.default(60),
  RATE_LIMIT_ADMISSIONS: tierLimits.prefault('free=60,starter=300,pro=600,enterprise=3000'),
  RATE_LIMIT_READS: tierLimits.prefault('free=3000,starter=6000,pro=12000,enterprise=60000'),
  // Deposit claims (POST /agents/deposit) have their own small bucket: each may start a run that reads the chain.
  RATE_LIMIT_DEPOSIT_CLAIMS: tierLimits.prefault('free=10,starter=20,pro=30,enterprise=60'),
  ALLOW_PRIVATE_INPUT_URLS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  INPUT_MAX_BYTES: positiveInt.default(50 * 1024 * 1024),
  // Uploaded inputs (POST /uploads): largest file per media kind, how long one is kept, and the live bytes an
  // account may hold at once; the expiry schedule deletes expired ones every UPLOAD_EXPIRY_INTERVAL_SECONDS.
  UPLOAD_MAX_IMAGE_BYTES: positiveInt.default(20 * 1024 * 1024),
  UPLOAD_MAX_AUDIO_BYTES: positiveInt.default(50 * 1024 * 1024),
  UPLOAD_MAX_VIDEO_BYTES: positiveInt.default(100 * 1024 * 1024),
  UPLOAD_TTL_SECONDS: positiveInt.default(86_400),
  UPLOAD_QUOTA_BYTES: positiveInt.default(1024 * 1024 * 1024),
  UPLOAD_EXPIRY_INTERVAL_SECONDS: positiveInt.default(300),
  // Where outputs and uploads live: `local` (DATA_DIR/files) or `s3`, any S3-compatible bucket (the AWS SDK reads
  // AWS_REGION, AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY and AWS_ENDPOINT_URL_S3 itself).
  STORAGE_DRIVER: z.enum(['local', 's3']).default('local'),
  S3_BUCKET: optionalText,
  S3_KEY_PREFIX: z.string().default(''),
  S3_FORCE_PATH_STYLE: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  // With s3: a /files/ link answers 302 to a link presigned for this long (S3 allows 7 days at most), so the bytes
  // go straight from the bucket to the caller instead of through the api.
  STORAGE_PRESIGNED_URLS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  STORAGE_PRESIGNED_URL_SECONDS: positiveInt.max(604_800).default(300),
  // Outputs are deleted this many days after their task ended (0: kept forever), by a schedule run every
  // OUTPUT_EXPIRY_INTERVAL_SECONDS; the task body says when (`outputs_expire_at`).
  OUTPUT_RETENTION_DAYS: z.coerce.number().int().min(0).max(3650).default(30),
  OUTPUT_EXPIRY_INTERVAL_SECONDS: positiveInt.default(3600),
  // Keys the id of a task named by an Idempotency-Key: the id names its output links, so it must not be computable.
  TASK_ID_SECRET: z.string().min(32, 'expected at least 32 characters').default(developmentKeyedTaskIdSecret),
  // Admission downloads and measures the inputs a price depends on (audio minutes, lip-sync) within this time.
  INPUT_MEASURE_TIMEOUT_SECONDS: positiveInt.default(20),
  ALLOW_PRIVATE_WEBHOOK_URLS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  // Upstream results name their outputs' URLs; an upstream (or a stand-in) on a private network needs this.
  ALLOW_PRIVATE_OUTPUT_URLS: z
    .enum(['true', 'false'])
    .default('false')
    .transform((value) => value === 'true'),
  FAL_KEY: optionalText,
  FAL_QUEUE_URL: z.url({ protocol: /^https?$/ }).optional(),
  REPLICATE_API_TOKEN: optionalText,
  REPLICATE_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  PROVIDER_POLL_INTERVAL_MS: positiveInt.default(1000),
  PROVIDER_POLL_MAX_INTERVAL_MS: positiveInt.default(15_000),
  UPSTREAM_CALLBACK_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  OPENAI_API_KEY: optionalText,
  OPENAI_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  FAL_JWKS_URL: z.url({ protocol: /^https?$/ }).optional(),
  FAL_USER_ID: optionalText,
  REPLICATE_WEBHOOK_SECRET: optionalText,
  FAL_TIMEOUT_SECONDS: positiveInt.default(30),
  REPLICATE_TIMEOUT_SECONDS: positiveInt.default(30),
  OPENAI_TIMEOUT_SECONDS: positiveInt.default(600),
  LOCAL_CONCURRENCY: positiveInt.default(availableParallelism()),
  FAL_CONCURRENCY: positiveInt.default(20),
  REPLICATE_CONCURRENCY: positiveInt.default(20),
  OPENAI_CONCURRENCY: positiveInt.default(20),
  // How long a task may wait for one of those slots; the wait does not count against the model's timeout.
  PROVIDER_QUEUE_TIMEOUT_SECONDS: positiveInt.default(600),
  // Workflows a worker keeps in memory between their steps; one it has no room for is replayed from its history at
  // its next step. Above the tasks in flight after a crash at the rate one machine sustains (docs/configuration.md).
  WORKFLOW_CACHE_SIZE: z.coerce.number().int().min(2).default(500),
  // Tracing is on exactly when this is set (the standard OpenTelemetry variables; see src/infra/tracing.ts).
  OTEL_EXPORTER_OTLP_ENDPOINT: z.url({ protocol: /^https?$/ }).optional(),
  OTEL_SERVICE_NAME: optionalText,
  // Prometheus: the process's metrics on a listener of its own (any role), and GET /metrics on the api with the
  // token; the Temporal SDK's own worker metrics on another port. Unset: not served.
  METRICS_PORT: port.optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  METRICS_TOKEN: z.string().min(16, 'expected at least 16 characters').optional(),
  TEMPORAL_METRICS_PORT: port.optional(),
  // `npm run cluster` only: how many api and worker processes it runs, and the ports of its Temporal frontend and
  // S3-compatible store (its PostgreSQL takes EMBEDDED_POSTGRES_PORT, its Web UI TEMPORAL_UI_PORT, its balancer PORT).
  CLUSTER_API_PROCESSES: positiveInt.default(2),
  CLUSTER_WORKER_PROCESSES: positiveInt.default(2),
  CLUSTER_TEMPORAL_PORT: port.default(7233),
  CLUSTER_S3_PORT: port.default(8333),
});

/** The variables as parsed, by their names (what the checks and their messages speak of). */
export type Env = z.infer<typeof envSchema>;

/**
 * X402_ENABLED, or its default: on when no chain has an RPC URL, so that `npm start` (which runs the local development
 * chain then) takes payments as it comes; off wherever a real chain is configured (production needs one), until set.
 */
export const x402EnabledOf = (env: Env): boolean =>
  env.X402_ENABLED ?? chains.every((chain) => !env[`${chain.toUpperCase() as Uppercase<Chain>}_RPC_URL`]);
