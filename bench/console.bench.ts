// Part of `npm run bench`: the console as a new user first meets it, on `npm start` (the compiled service in a
// process of its own): the first contentful paint of /console in Chromium, each load in a fresh browser context (an
// empty cache), and what that first page loads (its JavaScript and CSS, gzip). Targets: ≤ 1 s and ≤ 300 KB.
import { gzipSync } from 'node:zlib';
import { firstContentfulPaint, launchChromium, newPage } from '../console/test-support/browser.ts';
import { percentile } from './load.ts';
import { startNpmStartService } from './npm-start-service.ts';
import { formatTable, type Row, withTarget } from './table.ts';

const loads = 20;

async function firstPageBytes(origin: string): Promise<{ gzipped: number; assets: string[] }> {
  const index = await (await fetch(`${origin}/console`)).text();
  const assets = [...index.matchAll(/(?:src|href)="(\/console\/assets\/[^"]+\.(?:js|css))"/g)].map(
    (match) => match[1]!,
  );
  let gzipped = 0;
  for (const asset of assets)
    gzipped += gzipSync(Buffer.from(await (await fetch(`${origin}${asset}`)).arrayBuffer())).length;
  return { gzipped, assets };
}

const service = await startNpmStartService('console');
const browser = await launchChromium();
try {
  const origin = new URL(service.api).origin;
  const paints: number[] = [];
  for (let load = 0; load < loads; load += 1) {
    const page = await newPage(browser);
    await page.goto(`${origin}/console`, { waitUntil: 'load' });
    await page.getByLabel('API key').waitFor();
    const paint = await firstContentfulPaint(page);
    if (paint !== undefined) paints.push(paint);
    await page.context().close();
  }
  const { gzipped, assets } = await firstPageBytes(origin);
  const p50 = percentile(paints, 50);
  const worst = Math.max(...paints);
  const rows: Row[] = [
    withTarget(
      {
        name: '/console first contentful paint (Chromium, empty cache)',
        offered: `${loads} loads, one at a time`,
        requests: loads,
        result: `worst ${worst.toFixed(0)} ms`,
        p50,
        p99: percentile(paints, 99),
      },
      'p99 ≤ 1000 ms',
      percentile(paints, 99) <= 1000,
    ),
    withTarget(
      {
        name: '/console first page JavaScript and CSS (gzip)',
        offered: `${assets.length} files`,
        requests: 0,
        result: `${(gzipped / 1024).toFixed(1)} KB`,
      },
      '≤ 300 KB',
      gzipped <= 300 * 1024,
    ),
  ];
  console.log(`\n## Console, on npm start\n\n${formatTable(rows)}\n`);
} finally {
  await browser.close();
  await service.stop();
}
