// genctl: operators' tool. Exit codes: 0 done, 1 refused (not found, …), 2 usage error. --json for scripts.
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { Client, Connection } from '@temporalio/client';
import { type Config, ConfigError, embeddedDatabaseUrl, loadConfig, publicBaseUrl } from '../config/config.ts';
import { createPrisma, type PrismaClient } from '../db/prisma.ts';
import { isDatabaseUnreachable } from '../db/unreachable.ts';
import { readRuntimeFile, type RuntimeInfo, runtimeFile } from '../runtime-file.ts';
import { configuredStorage } from '../storage/configured-storage.ts';
import {
  CommandError,
  createDeveloperCommand,
  createKeyCommand,
  creditAccountCommand,
  listKeysCommand,
  type Output,
  revokeKeyCommand,
  showAccountCommand,
} from './commands.ts';
import { listDepositsCommand, showDepositCommand } from './deposit-commands.ts';
import { listPaymentsCommand } from './payment-commands.ts';
import { listTasksCommand, showTaskCommand } from './task-commands.ts';
import { deleteUploadCommand, listUploadsCommand } from './upload-commands.ts';
import { listWebhooksCommand, redeliverWebhookCommand, showWebhookCommand } from './webhook-commands.ts';
import { connectOptions, embeddedTarget } from '../use-cases/temporal/connection.ts';

const usage = `genctl: operate the generation gateway

  genctl developers create --name <name> [--tier free|starter|pro|enterprise]
  genctl keys create --account <account-id> [--name <name>] [--expires-in-days <n>] [--scopes generate,read,keys]
                    [--budget <usd>/<day|week|month|total>] [--models <a,b>] [--types <a,b>]
                    [--max-cost-per-task <usd>] [--rate-limit-per-minute <n>]
  genctl keys list --account <account-id>
  genctl keys revoke <key-id>
  genctl accounts show <account-id>
  genctl accounts credit <account-id> --amount <usd> --reason <text> [--idempotency-key <key>]
  genctl webhooks list [--task <task-id>] [--account <account-id>] [--limit <n>]
  genctl webhooks show <message-id>
  genctl webhooks redeliver <message-id> [--url <target-url>]
  genctl deposits list [--account <account-id>] [--status pending|confirmed|credited|rejected] [--limit <n>]
  genctl deposits show <deposit-id | tx-hash> [--chain <chain>]
  genctl payments list [--payer <address>] [--status authorized|settling|settled|failed|abandoned] [--limit <n>]
  genctl uploads list [--account <account-id>] [--limit <n>]
  genctl uploads delete <upload-id>
  genctl tasks list [--account <account-id>] [--status queued|processing|completed|failed] [--model <id>] [--limit <n>]
  genctl tasks show <task-id>
  genctl tasks cancel <task-id>
  genctl tasks replay --status failed [--since <time>] [--until <time>] [--model <id>] [--provider <name>]
      [--account <account-id>] [--error <text>] [--limit <n>] [--rate <tasks/s>] [--batch-id <id>] [--include-cancelled] [--dry-run]
      [--no-wait]
  genctl chain fund <address> --amount <usdc>
  genctl chain send --to <address> --amount <usdc> [--from-key <private-key>]
  genctl status

Every command takes --json. The database is DATABASE_URL, or the embedded one of the running \`npm start\`; redeliver
and tasks cancel/replay also reach Temporal at TEMPORAL_ADDRESS, or the dev server of the running \`npm start\`. Their
ports are read from DATA_DIR/runtime.json, which \`npm start\` writes (\`status\` prints it), and are the defaults
without it. \`chain\` works only with the local development chain of a running \`npm start\` (found in
DATA_DIR/anvil/chain.json): test USDC, never a real network.`;

const options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  tier: { type: 'string' },
  account: { type: 'string' },
  'expires-in-days': { type: 'string' },
  budget: { type: 'string' },
  models: { type: 'string' },
  types: { type: 'string' },
  'max-cost-per-task': { type: 'string' },
  'rate-limit-per-minute': { type: 'string' },
  scopes: { type: 'string' },
  amount: { type: 'string' },
  reason: { type: 'string' },
  'idempotency-key': { type: 'string' },
  task: { type: 'string' },
  limit: { type: 'string' },
  url: { type: 'string' },
  status: { type: 'string' },
  chain: { type: 'string' },
  to: { type: 'string' },
  'from-key': { type: 'string' },
  payer: { type: 'string' },
  since: { type: 'string' },
  until: { type: 'string' },
  model: { type: 'string' },
  provider: { type: 'string' },
  error: { type: 'string' },
  rate: { type: 'string' },
  'batch-id': { type: 'string' },
  'include-cancelled': { type: 'boolean' },
  'dry-run': { type: 'boolean' },
  'no-wait': { type: 'boolean' },
} as const;

const redactPassword = (url: string) => url.replace(/^(\w+:\/\/[^:/@]+):[^@/]*@/, '$1:***@');

type DatabaseSource = 'DATABASE_URL' | 'runtime file' | 'default';

/** A database that does not answer, in one sentence: which one genctl tried, and what to do about it. */
function unreachableDatabase(source: DatabaseSource, url: string, dataDir: string): string {
  switch (source) {
    case 'default':
      return `no running service found for DATA_DIR ${resolve(dataDir)} (start it with \`npm start\`, or set DATABASE_URL to reach a database)`;
    case 'runtime file':
      return `the database of the service running from DATA_DIR ${resolve(dataDir)} (${redactPassword(url)}) does not answer; is the service stopping?`;
    case 'DATABASE_URL':
      return `the database at DATABASE_URL (${redactPassword(url)}) does not answer; check that it runs and that DATABASE_URL names it`;
  }
}

/** Where genctl (and an operator's `temporal --address …`) reach the service. */
function statusOutput(status: Record<string, string | number | null>): Output {
  const lines = [
    status.file ? `Running       pid ${status.pid} (${status.file})` : 'Running       no npm start found: defaults',
    `API           ${status.api_url ?? '-'}`,
    `Database      ${status.database_url}`,
    `Temporal      ${status.temporal_address} (namespace ${status.temporal_namespace})`,
    `Temporal UI   ${status.temporal_ui_url ?? '-'}`,
  ];
  return { text: lines.join('\n'), json: status };
}

type Values = ReturnType<
  typeof parseArgs<{ args: string[]; options: typeof options; allowPositionals: true }>
>['values'];

/** What a command may use: the parsed options, its target (the third word), and the service it reaches. */
interface CommandContext {
  values: Values;
  target: string | undefined;
  config: Config;
  running: RuntimeInfo | undefined;
  prisma: PrismaClient;
  databaseUrl: string;
  temporalAddress: string;
  /** Connects on first use; closed when the command ends. */
  temporal: () => Promise<Client>;
}

// Every command by its words (`group action`): what it runs with what it parsed.
const commands = new Map<string, (context: CommandContext) => Promise<Output>>([
  ['developers create', ({ prisma, values }) => createDeveloperCommand(prisma, values)],
  [
    'keys create',
    ({ prisma, values }) => createKeyCommand(prisma, { ...values, expiresInDays: values['expires-in-days'] }),
  ],
  ['keys list', ({ prisma, values }) => listKeysCommand(prisma, values)],
  ['keys revoke', ({ prisma, target }) => revokeKeyCommand(prisma, target)],
  ['accounts show', ({ prisma, target }) => showAccountCommand(prisma, target)],
  [
    'accounts credit',
    ({ prisma, target, values }) =>
      creditAccountCommand(prisma, target, { ...values, idempotencyKey: values['idempotency-key'] }),
  ],
  ['webhooks list', ({ prisma, values }) => listWebhooksCommand(prisma, values)],
  ['webhooks show', ({ prisma, target }) => showWebhookCommand(prisma, target)],
  [
    'webhooks redeliver',
    ({ prisma, temporal, config, target, values }) =>
      redeliverWebhookCommand({ prisma, temporal, taskQueue: config.temporal.taskQueue }, target, values),
  ],
  ['deposits list', ({ prisma, values }) => listDepositsCommand(prisma, values)],
  ['deposits show', ({ prisma, target, values }) => showDepositCommand(prisma, target, values)],
  ['payments list', ({ prisma, values }) => listPaymentsCommand(prisma, values)],
  ['uploads list', ({ prisma, values }) => listUploadsCommand(prisma, values)],
  [
    'uploads delete',
    // The files of the local storage, in DATA_DIR as `npm start` keeps them.
    ({ prisma, config, target }) =>
      deleteUploadCommand(
        { prisma, storage: configuredStorage(config.storage, config.server.dataDir, publicBaseUrl(config.server)) },
        target,
      ),
  ],
  ['tasks list', ({ prisma, values }) => listTasksCommand(prisma, values)],
  [
    'tasks show',
    ({ prisma, running, config, target }) =>
      showTaskCommand(
        {
          prisma,
          temporalUiUrl: running?.temporalUiUrl,
          namespace: running?.temporalNamespace ?? config.temporal.namespace,
          retention: config.outputs,
        },
        target,
      ),
  ],
  // Loaded when run, as replay's: cancelling brings in the payment methods (x402's chain clients), the chain commands
  // viem; loading them for every command tripled each one's start.
  [
    'tasks cancel',
    async ({ prisma, temporal, config, target }) =>
      (await import('./cancel-commands.ts')).cancelTaskCommand({ prisma, temporal, config }, target),
  ],
  ['tasks replay', replayCommand],
  [
    'chain fund',
    async ({ config, target, values }) =>
      (await import('./chain-commands.ts')).fundCommand(config.server.dataDir, target, values),
  ],
  [
    'chain send',
    async ({ config, values }) =>
      (await import('./chain-commands.ts')).sendCommand(config.server.dataDir, {
        ...values,
        fromKey: values['from-key'],
      }),
  ],
  [
    'status',
    async ({ config, running, databaseUrl, temporalAddress }) =>
      statusOutput({
        file: running ? runtimeFile(config.server.dataDir) : null,
        pid: running?.pid ?? null,
        api_url: running?.apiUrl ?? null,
        database_url: redactPassword(databaseUrl),
        temporal_address: temporalAddress,
        temporal_namespace: running?.temporalNamespace ?? config.temporal.namespace,
        temporal_ui_url: running?.temporalUiUrl ?? null,
      }),
  ],
]);

async function replayCommand({ prisma, config, temporal, values }: CommandContext): Promise<Output> {
  // Loaded here: the admission path it brings in would slow every other command's start.
  const [{ replayTasksCommand }, { loadCatalog }] = await Promise.all([
    import('./replay-commands.ts'),
    import('../catalog/catalog.ts'),
  ]);
  return replayTasksCommand(
    { prisma, config, catalog: loadCatalog(), temporal, progress: process.stderr },
    {
      ...values,
      batchId: values['batch-id'],
      includeCancelled: values['include-cancelled'],
      dryRun: values['dry-run'],
      noWait: values['no-wait'],
    },
  );
}

async function run(argv: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({ args: argv, options, allowPositionals: true, strict: true });
  } catch (error) {
    console.error(`genctl: ${(error as Error).message}\n\n${usage}`);
    return 2;
  }
  const { values, positionals } = parsed;
  const [group, action, target] = positionals;
  if (values.help || !group || group === 'help') {
    console.log(usage);
    return values.help || group === 'help' ? 0 : 2;
  }

  const config = loadConfig(process.env, []);
  // The environment first, then what the running `npm start` announced, then the defaults it would have used.
  const running = await readRuntimeFile(config.server.dataDir);
  const databaseUrl = config.database.url ?? running?.databaseUrl ?? embeddedDatabaseUrl(config.database);
  const databaseSource: DatabaseSource = config.database.url
    ? 'DATABASE_URL'
    : running?.databaseUrl
      ? 'runtime file'
      : 'default';
  // A configured server comes with its profile (TLS, API key); `npm start`'s embedded dev server is plaintext.
  const temporalTarget = config.temporal.address
    ? config.temporal
    : embeddedTarget(config.temporal, running?.temporalAddress ?? `127.0.0.1:${config.temporal.devServer.port}`);
  const temporalAddress = temporalTarget.address ?? '';
  const prisma = createPrisma(databaseUrl);
  let connection: Connection | undefined;
  const temporal = async () => {
    connection = await Connection.connect(connectOptions(temporalTarget));
    return new Client({ connection, namespace: config.temporal.namespace });
  };
  try {
    const command = commands.get(action === undefined ? group : `${group} ${action}`);
    if (!command) throw new CommandError(`unknown command "${positionals.join(' ')}"\n\n${usage}`, 2);
    const context = { values, target, config, running, prisma, databaseUrl, temporalAddress, temporal };
    const output = await command(context);
    console.log(values.json ? JSON.stringify(output.json, null, 2) : output.text);
    return 0;
  } catch (caught) {
    // A stopped service is the usual cause, not a bug: one sentence, never Prisma's invocation text.
    const error = isDatabaseUnreachable(caught)
      ? new CommandError(unreachableDatabase(databaseSource, databaseUrl, config.server.dataDir))
      : caught;
    if (error instanceof CommandError) {
      console.error(values.json ? JSON.stringify({ error: error.message }) : `genctl: ${error.message}`);
      return error.exitCode;
    }
    console.error(`genctl: ${(error as Error).message}`);
    return 1;
  } finally {
    await prisma.$disconnect();
    await connection?.close();
  }
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`genctl: ${error.message}`);
  process.exitCode = 2;
}
