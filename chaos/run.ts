// `npm run chaos [-- <scenario ids…>] [--tasks N] [--cluster]`: each fault of chaos/scenarios.ts against the real
// embedded stack (a–f), one after the other, each in a scratch directory; then one table. Exits 1 when an invariant
// broke. `--cluster` runs the cluster's scenarios instead (ca–cd: `npm run cluster`'s layout, Caddy in front);
// ids pick scenarios of either kind.
import { type ScenarioResult, runScenario } from './run-scenario.ts';
import { clusterScenarios, scenario, scenarios } from './scenarios.ts';

export function resultTable(results: ScenarioResult[]): string {
  const seconds = (ms: number) => `${(ms / 1000).toFixed(1)} s`;
  return [
    '| scenario | tasks | in flight at fault | completed | failed | lost | double charges | client errors during the fault | recovery time | webhooks delivered once | invariants |',
    '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|',
    ...results.map(
      (r) =>
        `| ${r.id}: ${r.title} | ${r.figures.tasks} | ${r.inFlightAtFault} | ${r.figures.completed} | ${r.figures.failed} | ` +
        `${r.figures.lost} | ${r.figures.doubleCharges} | ${r.clientErrorsDuringFault} | ${seconds(r.recoveryMs)} | ` +
        `${r.figures.webhooksDeliveredOnce}/${r.figures.webhookMessages}` +
        `${r.figures.webhookResends > 0 ? ` (+${r.figures.webhookResends} resent)` : ''} | ${r.ok ? 'hold' : `${r.figures.problems.length} broken`} |`,
    ),
  ].join('\n');
}

// The fault lands once 250 of 280 tasks are admitted, while the last 30 are posted. Inputs are held until then (at
// most 25 s each, eight at a time per worker), so nearly all of those admitted are still in flight.
const defaultTasks = 280;
const faultShare = 250 / 280;

async function main() {
  let tasks = defaultTasks;
  let onCluster = false;
  const ids: string[] = [];
  const args = process.argv.slice(2);
  for (let i = 0; i < args.length; i++) {
    if (args[i] === '--tasks') tasks = Number(args[++i]);
    else if (args[i] === '--cluster') onCluster = true;
    else ids.push(args[i]!);
  }
  const chosen = ids.length > 0 ? ids.map(scenario) : onCluster ? clusterScenarios : scenarios;
  const results: ScenarioResult[] = [];
  const began = Date.now();
  for (const each of chosen) {
    try {
      const faultAfter = Math.ceil(tasks * faultShare);
      results.push(await runScenario(each, { tasks, faultAfter, log: (line) => console.error(line) }));
    } catch (error) {
      console.error(`[chaos ${each.id}] did not run to its end:`, error);
    }
  }
  console.log(
    `\nGeneration gateway fault suite${onCluster ? ' on the cluster (2 api, 2 worker processes, Caddy)' : ''}: ` +
      `${tasks} local/lanczos upscales per scenario, posted with Idempotency-Keys ` +
      `by a retrying client (${((Date.now() - began) / 60_000).toFixed(1)} min)\n`,
  );
  console.log(resultTable(results));
  console.log(
    '\nrecovery time: fault → every task ended (f: receiver down → every webhook acknowledged, the third scheduled ' +
      'attempt comes ~5 min after the first). Client errors: failed POSTs and GETs (network, 5xx), all retried.',
  );
  for (const result of results) {
    if (result.errorKinds.length > 0) console.log(`  ${result.id}: ${result.errorKinds.join(', ')}`);
    for (const [reason, count] of Object.entries(result.figures.failureReasons))
      console.log(`  ${result.id} failed ×${count}: ${reason}`);
    if (!result.ok)
      console.log(`  ${result.id} broke: ${result.figures.problems.slice(0, 10).join('; ')} (logs in ${result.dir})`);
  }
  const failed = results.length < chosen.length || results.some((result) => !result.ok);
  process.exit(failed ? 1 : 0);
}

await main();
