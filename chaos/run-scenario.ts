// One scenario from start to verdict: its stack in a scratch directory, a developer account credited through the
// ledger service, `tasks` upscales of a slowly served PNG (local/lanczos) posted with Idempotency-Keys and a
// webhook_url, the fault once half are admitted, then the invariants. The inputs are held until the fault lands, so
// what was admitted is still in flight when it does. A failed scenario keeps its directory (logs).
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import sharp from 'sharp';
import { createDeveloper } from '../src/accounts/accounts.ts';
import { credit } from '../src/ledger/ledger.ts';
import { startLoad } from './client.ts';
import { checkInvariants, type Figures, webhooksOutstanding } from './invariants.ts';
import { sleep } from '../src/infra/processes/supervised-process.ts';
import { startChaosReceiver } from './receiver.ts';
import type { Scenario } from './scenarios.ts';
import { startStack } from './stack.ts';

export interface ScenarioResult {
  id: string;
  title: string;
  figures: Figures;
  inFlightAtFault: number;
  clientErrorsDuringFault: number;
  clientErrorsBeforeFault: number;
  /** The commonest client errors, `what ×count`. */
  errorKinds: string[];
  /** Fault → every task ended (f: → every webhook acknowledged). */
  recoveryMs: number;
  /** Where its data and logs are (kept when it failed). */
  dir: string;
  ok: boolean;
}

export interface RunOptions {
  tasks: number;
  /** How long each input takes to serve once the inputs are no longer held. */
  inputDelayMs?: number;
  /** Hold inputs until the fault lands (default), so what was admitted is still in flight when it does. */
  holdInputs?: boolean;
  /** The fault lands once this many tasks are admitted (default: half of them). */
  faultAfter?: number;
  log?: (line: string) => void;
}

const giveUpMs = 6 * 60_000;
// The worker gives up on an input after 30 s: one held for this long is served, whether or not the fault landed.
const gateLimitMs = 25_000;

async function startInputs(delayMs: number) {
  const png = await sharp({ create: { width: 8, height: 8, channels: 3, background: '#2266aa' } })
    .png()
    .toBuffer();
  let open!: () => void;
  const opened = new Promise<void>((resolve) => (open = resolve));
  const server = createServer((_req, res) => {
    let served = false;
    const serve = () => {
      if (served) return;
      served = true;
      setTimeout(() => res.writeHead(200, { 'content-type': 'image/png' }).end(png), delayMs);
    };
    setTimeout(serve, gateLimitMs);
    void opened.then(serve);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    /** From now on every input, held or new, is served after its delay. */
    open: () => open(),
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

async function until(condition: () => boolean | Promise<boolean>, timeoutMs: number): Promise<boolean> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) return false;
    await sleep(250);
  }
  return true;
}

export async function runScenario(scenario: Scenario, options: RunOptions): Promise<ScenarioResult> {
  const log = (line: string) => options.log?.(`[chaos ${scenario.id}] ${line}`);
  const began = Date.now();
  const stack = await startStack(scenario.id, scenario.topology);
  log(`stack up in ${((Date.now() - began) / 1000).toFixed(1)} s (${stack.dir})`);
  const inputs = await startInputs(options.inputDelayMs ?? 100);
  const receiver = await startChaosReceiver(scenario.receiverDownMs ?? 0);
  let ok = false;
  try {
    const { developerId, apiKey } = await createDeveloper(stack.prisma, {
      name: `chaos ${scenario.id}`,
      tier: 'enterprise',
    });
    await credit(stack.prisma, {
      accountId: developerId,
      amount: 100_000_000n,
      kind: 'adjustment',
      idempotencyKey: `chaos:${developerId}`,
    });
    const faultAt = Date.now();
    const load = startLoad({
      apiUrls: stack.apiUrls,
      apiKey: apiKey.key,
      count: options.tasks,
      keyPrefix: `chaos-${scenario.id}-${faultAt}`,
      body: (index) => ({
        type: 'upscale',
        model: 'local/lanczos',
        image_url: `${inputs.url}/in-${index}.png`,
        webhook_url: receiver.url,
      }),
      giveUpMs,
    });
    // Scenario f's fault is there from the start: nothing is held.
    if (scenario.receiverDownMs || options.holdInputs === false) inputs.open();
    let injectedAt = faultAt;
    let inFlightAtFault = 0;
    const problems: string[] = [];
    if (!scenario.receiverDownMs) {
      await until(() => load.admittedCount() >= (options.faultAfter ?? options.tasks / 2), giveUpMs);
      injectedAt = Date.now();
      inFlightAtFault = load.inFlight();
      log(`fault with ${load.admittedCount()} admitted, ${inFlightAtFault} in flight`);
      const fault = scenario.fault(stack);
      inputs.open();
      await fault.catch((error: unknown) => {
        problems.push(`the fault's repair failed: ${(error as Error).message}`);
      });
      log(`repaired after ${((Date.now() - injectedAt) / 1000).toFixed(1)} s`);
    }
    const report = await load.done;
    // Scenario f's fault is there from the start: the most tasks in flight while it lasted.
    if (scenario.receiverDownMs) inFlightAtFault = report.peakInFlight;
    log(`client done: ${report.ended.size} ended, ${report.refused.size} refused, ${report.errors.length} errors`);
    await until(
      async () => (await webhooksOutstanding(stack.prisma, developerId, receiver)) === 0,
      scenario.webhookWaitMs ?? 90_000,
    );
    const webhooksAt = Date.now();
    const figures = await checkInvariants(stack.prisma, { accountId: developerId, load: report, receiver });
    figures.problems.unshift(...problems);
    for (const [key, why] of report.refused) figures.problems.push(`key ${key} refused: ${why}`);
    const kinds = new Map<string, number>();
    for (const error of report.errors) kinds.set(error.what, (kinds.get(error.what) ?? 0) + 1);
    ok = figures.problems.length === 0;
    log(ok ? 'invariants hold' : `problems:\n  ${figures.problems.slice(0, 20).join('\n  ')}`);
    return {
      id: scenario.id,
      title: scenario.title,
      figures,
      inFlightAtFault,
      clientErrorsDuringFault: report.errors.filter((error) => error.at >= injectedAt).length,
      clientErrorsBeforeFault: report.errors.filter((error) => error.at < injectedAt).length,
      errorKinds: [...kinds]
        .sort((x, y) => y[1] - x[1])
        .slice(0, 3)
        .map(([what, count]) => `${what} ×${count}`),
      recoveryMs: (scenario.receiverDownMs ? webhooksAt : report.lastEndAt) - injectedAt,
      dir: stack.dir,
      ok,
    };
  } finally {
    await receiver.close();
    await inputs.close();
    await stack.stop({ keepData: !ok || process.env.CHAOS_KEEP_DATA === '1' });
  }
}
