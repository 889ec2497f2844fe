// The Deposits page for an agent in a real browser, on the local chain with its real ERC-20: the address as text and
// as a QR code of that text, a deposit claimed by its transaction hash and credited once, listed and in the balance.
import { join } from 'node:path';
import sharp from 'sharp';
import type { Address } from 'viem';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { anvilDevAccount } from '../../src/chain/local-chain.ts';
import {
  type Browser,
  collectPageErrors,
  launchChromium,
  newPage,
  seriousAccessibilityViolations,
  signIn,
} from '../../console/test-support/browser.ts';
import { readQrCode } from '../../console/test-support/qr.ts';
import { useLocalChain } from '../helpers/chain.ts';
import { useGateway } from '../helpers/gateway.ts';
import { call, registerAgent } from '../helpers/http.ts';

const screenshot = (name: string) => join(import.meta.dirname, '..', '..', 'docs', 'images', `console-${name}.png`);

const chain = useLocalChain();
const gateway = useGateway(() => ({
  chains: { enabled: ['base'], base: { rpcUrl: chain.rpcUrl, usdcAddress: chain.usdcAddress, confirmations: 2 } },
  deposits: { waitSeconds: 10 },
}));
let browser: Browser;

beforeAll(async () => {
  browser = await launchChromium();
});
afterAll(() => browser?.close());

describe('console deposits', () => {
  it('shows the address with its QR code, and claims a 5 USDC deposit by its hash', async () => {
    const agent = await registerAgent(gateway, { body: { agent_name: 'console depositor' } });
    const address = agent.deposit_addresses.base as Address;
    const page = await newPage(browser);
    const errors = collectPageErrors(page);
    await signIn(page, gateway.app.url, agent.api_key);
    await page.getByRole('navigation').getByRole('link', { name: 'Deposits' }).click();
    const card = page.getByRole('listitem', { name: 'base deposit address' });
    await card.getByText(address, { exact: true }).waitFor();
    const qr = card.getByRole('img', { name: `QR code of the base address ${address}` });
    const png = Buffer.from((await qr.getAttribute('src'))!.replace(/^data:image\/png;base64,/, ''), 'base64');
    const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    expect(readQrCode(new Uint8ClampedArray(data), info.width, info.height)).toBe(address);

    const sender = anvilDevAccount(8);
    await chain.mint(sender.address, 6_000_000n);
    const tx = await chain.transfer({ from: sender, to: address, amount: 5_000_000n });
    await chain.mine(2);
    const before = (await call(gateway, 'GET', '/agents/balance', { key: agent.api_key })).body.balance;
    await page.getByLabel('Transaction hash').fill(tx);
    await page.getByRole('button', { name: 'Claim' }).click();
    await page.getByText('$5.00 credited').waitFor({ timeout: 20_000 });
    const after = (await call(gateway, 'GET', '/agents/balance', { key: agent.api_key })).body.balance;
    expect(Number(after) - Number(before)).toBeCloseTo(5, 6);
    const recent = page.getByRole('region', { name: 'Recent deposits' });
    await recent.getByText(tx).waitFor();
    // A second claim of the same transaction credits nothing more.
    await page.getByRole('button', { name: 'Claim' }).click();
    await expect
      .poll(async () => (await call(gateway, 'GET', '/agents/balance', { key: agent.api_key })).body.balance)
      .toBe(after);

    // A deposit still confirming shows its count, and moves on by itself once the blocks come.
    const second = await chain.transfer({ from: sender, to: address, amount: 1_000_000n });
    await page.getByLabel('Transaction hash').fill(second);
    await page.getByRole('button', { name: 'Claim' }).click();
    const row = recent.getByRole('row', { name: new RegExp(second) });
    await expect.poll(() => row.textContent()).toMatch(/pending\s*1 of 2/);
    expect(await seriousAccessibilityViolations(page)).toEqual([]);
    await page.screenshot({ path: screenshot('deposits'), fullPage: true });
    await chain.mine(2);
    await expect.poll(() => row.textContent(), { timeout: 30_000 }).toMatch(/credited\s*2 of 2/);
    await page.setViewportSize({ width: 375, height: 812 });
    await page.screenshot({ path: screenshot('deposits-375'), fullPage: true });
    expect(errors).toEqual([]);
    await page.context().close();
  });
});
