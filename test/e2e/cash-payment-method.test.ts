// A third payment method registered beside balance and x402, through the whole stack (the app, Temporal and a worker
// on the same registry): the registry is generic. Its credential rides in Authorization; a request carrying none is
// answered x402's offer and its challenge in one 402; its voucher admits, holds and settles the task; API keys stay the
// balance's.
import { beforeAll, describe, expect, it } from 'vitest';
import { decodePaymentRequiredHeader } from '@x402/core/http';
import { balanceMethod } from '../../src/payments/methods/balance/balance-method.ts';
import { PaymentRegistry } from '../../src/payments/methods/payment-registry.ts';
import { x402Method } from '../../src/payments/methods/x402/x402-method.ts';
import { formatUsd } from '../../src/domain/money.ts';
import { unreadChains } from '../helpers/app.ts';
import { useFundedDeveloper, useGateway } from '../helpers/gateway.ts';
import { call, waitForEnd } from '../helpers/http.ts';
import { cashMethod, Till } from '../payments/methods/cash-method.ts';

const till = new Till();
const payments = new PaymentRegistry<never>().register(balanceMethod).register(x402Method).register(cashMethod(till));
const gateway = useGateway(() => ({ x402: { enabled: true }, ...unreadChains }), { paymentMethods: payments });

const speech = { type: 'text-to-audio', model: 'local/espeak', prompt: 'Paid in cash.' };
const drawer = useFundedDeveloper(gateway, { amount: 1_000_000n });
beforeAll(() => {
  till.drawer = drawer.accountId;
});

const cash = (voucher: string) => ({ authorization: `Cash ${voucher}` });

describe('a payment method registered by a test ("cash")', () => {
  it("answers a request carrying no credential with x402's offer and cash's challenge in one 402", async () => {
    const refused = await call(gateway, 'POST', '/generations', { body: speech });
    expect(refused.status).toBe(402);
    expect(refused.headers.get('www-authenticate')).toMatch(/^Cash realm="gateway", amount="\d+\.\d+"$/);
    const offer = decodePaymentRequiredHeader(refused.headers.get('payment-required')!);
    expect(offer.accepts.length).toBeGreaterThan(0);
    expect(refused.body).toMatchObject({ error: 'payment_required', requirements: { x402Version: 2 } });
  });

  it('takes its credential in Authorization: a voucher admits the task, held, then settled once it delivered', async () => {
    const voucher = till.issue(500_000n);
    const created = await call(gateway, 'POST', '/generations', { body: speech, headers: cash(voucher) });
    expect(created.status).toBe(202);
    expect(created.body).not.toHaveProperty('access_token');
    expect(till.vouchers.get(voucher)?.heldFor).toBe(created.body.id);

    const done = await waitForEnd(gateway, { key: drawer.key, pollUrl: created.body.poll_url });
    expect(done).toMatchObject({ status: 'completed', model: 'local/espeak' });
    const costMicros = BigInt(Math.round(done.cost * 1e6));
    expect(till.vouchers.get(voucher)?.settled).toBe(costMicros);
    const balance = await gateway.database.prisma.balance.findUniqueOrThrow({ where: { accountId: till.drawer } });
    expect(balance).toMatchObject({ balance: 1_000_000n - costMicros, reserved: 0n });
    const row = await gateway.database.prisma.task.findUniqueOrThrow({ where: { id: created.body.id } });
    expect(row.accountId).toBe(till.drawer);

    const receipts = await call(gateway, 'GET', `/generations/${created.body.id}/receipt`, { key: drawer.key });
    expect(receipts.status).toBe(200);
    expect(receipts.body.receipts).toEqual([
      expect.objectContaining({
        kind: 'payment',
        network: 'cash',
        transaction: `voucher:${voucher}`,
        amount: formatUsd(costMicros),
      }),
    ]);
  });

  it('refuses a voucher it does not know, or one already spent, with its challenge (never as a bad API key)', async () => {
    const unknown = await call(gateway, 'POST', '/generations', { body: speech, headers: cash('cash_nothing') });
    expect(unknown.status).toBe(402);
    expect(unknown.headers.get('www-authenticate')).toMatch(/^Cash /);

    const voucher = till.issue(500_000n);
    expect((await call(gateway, 'POST', '/generations', { body: speech, headers: cash(voucher) })).status).toBe(202);
    const again = await call(gateway, 'POST', '/generations', { body: speech, headers: cash(voucher) });
    expect(again.status).toBe(402);
  });

  it("leaves an API key the balance's, and x402's payment headers x402's", async () => {
    const keyed = await call(gateway, 'POST', '/generations', { key: drawer.key, body: speech });
    expect(keyed.status).toBe(202);
    const x402 = await call(gateway, 'POST', '/generations', { body: speech, headers: { 'x-payment': 'not base64' } });
    expect(x402.status).toBe(402);
    expect(x402.headers.get('www-authenticate')).toBeNull();
    expect(x402.body.requirements.error).toBeDefined();
  });
});
