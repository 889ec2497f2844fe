// genctl: operators' tool. Exit codes: 0 done, 1 refused (not found, …), 2 usage error. --json for scripts.
import { parseArgs } from 'node:util';
import { ConfigError, embeddedDatabaseUrl, loadConfig } from '../config.ts';
import { createPrisma } from '../db/prisma.ts';
import {
  CommandError, createDeveloperCommand, createKeyCommand, creditAccountCommand, listKeysCommand, type Output,
  revokeKeyCommand, showAccountCommand,
} from './commands.ts';

const usage = `genctl: operate the generation gateway

  genctl developers create --name <name> [--tier free|starter|pro|enterprise]
  genctl keys create --account <account-id> [--name <name>] [--expires-in-days <n>]
  genctl keys list --account <account-id>
  genctl keys revoke <key-id>
  genctl accounts show <account-id>
  genctl accounts credit <account-id> --amount <usd> --reason <text> [--idempotency-key <key>]

Every command takes --json. The database is DATABASE_URL, or the embedded one of \`npm start\`.`;

const options = {
  json: { type: 'boolean' },
  help: { type: 'boolean', short: 'h' },
  name: { type: 'string' },
  tier: { type: 'string' },
  account: { type: 'string' },
  'expires-in-days': { type: 'string' },
  amount: { type: 'string' },
  reason: { type: 'string' },
  'idempotency-key': { type: 'string' },
} as const;

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
  const prisma = createPrisma(config.DATABASE_URL ?? embeddedDatabaseUrl(config));
  try {
    let output: Output;
    switch (`${group} ${action ?? ''}`) {
      case 'developers create': output = await createDeveloperCommand(prisma, values); break;
      case 'keys create': output = await createKeyCommand(prisma, { ...values, expiresInDays: values['expires-in-days'] }); break;
      case 'keys list': output = await listKeysCommand(prisma, values); break;
      case 'keys revoke': output = await revokeKeyCommand(prisma, target); break;
      case 'accounts show': output = await showAccountCommand(prisma, target); break;
      case 'accounts credit': output = await creditAccountCommand(prisma, target, { ...values, idempotencyKey: values['idempotency-key'] }); break;
      default: throw new CommandError(`unknown command "${positionals.join(' ')}"\n\n${usage}`, 2);
    }
    console.log(values.json ? JSON.stringify(output.json, null, 2) : output.text);
    return 0;
  } catch (error) {
    if (error instanceof CommandError) {
      console.error(values.json ? JSON.stringify({ error: error.message }) : `genctl: ${error.message}`);
      return error.exitCode;
    }
    console.error(`genctl: ${(error as Error).message}`);
    return 1;
  } finally {
    await prisma.$disconnect();
  }
}

try {
  process.exitCode = await run(process.argv.slice(2));
} catch (error) {
  if (!(error instanceof ConfigError)) throw error;
  console.error(`genctl: ${error.message}`);
  process.exitCode = 2;
}
