// The one place that reads the environment. Every variable is documented in .env.example; a bad value stops
// the start with a message naming the variable.
import { z } from 'zod';

export const roles = ['all', 'api', 'worker'] as const;
export type Role = (typeof roles)[number];

const port = z.coerce.number().int().min(1).max(65535);
const optionalText = z.string().trim().min(1).optional();
const byteSize = z.string().regex(/^\d+(b|kb|mb)$/i, 'expected a size such as 512kb or 1mb');

export const configSchema = z.object({
  GATEWAY_ROLE: z.enum(roles).default('all'),
  NODE_ENV: z.enum(['development', 'test', 'production']).default('development'),
  HOST: z.string().min(1).default('127.0.0.1'),
  PORT: port.default(3000),
  PUBLIC_BASE_URL: z.url({ protocol: /^https?$/ }).optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  JSON_BODY_LIMIT: byteSize.default('1mb'),
  DATA_DIR: z.string().min(1).default('.data'),
  DATABASE_URL: z.url({ protocol: /^postgres(ql)?$/ }).optional(),
  EMBEDDED_POSTGRES_PORT: port.default(5433),
  TEMPORAL_ADDRESS: z.string().regex(/^[\w.-]+:\d+$/, 'expected host:port').optional(),
  TEMPORAL_NAMESPACE: z.string().min(1).default('default'),
  TEMPORAL_TASK_QUEUE: z.string().min(1).default('gateway'),
  TEMPORAL_DEV_SERVER_PORT: port.default(7233),
  TEMPORAL_UI_PORT: port.default(8233),
  TEMPORAL_CLI_PATH: optionalText,
});

export type Config = z.infer<typeof configSchema>;
export const configKeys = Object.keys(configSchema.shape) as (keyof Config)[];

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

  const parsed = configSchema.safeParse(values);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`);
    throw new ConfigError(`Invalid configuration — ${problems.join('; ')}`);
  }
  const config = parsed.data;
  // A single role joins a deployment that runs elsewhere; only the all-in-one role embeds infrastructure.
  if (config.GATEWAY_ROLE !== 'all') {
    for (const key of ['DATABASE_URL', 'TEMPORAL_ADDRESS'] as const) {
      if (!config[key]) throw new ConfigError(`Invalid configuration — ${key}: required when GATEWAY_ROLE is ${config.GATEWAY_ROLE}`);
    }
  }
  return config;
}

export function publicBaseUrl(config: Config): string {
  return config.PUBLIC_BASE_URL ?? `http://localhost:${config.PORT}`;
}
