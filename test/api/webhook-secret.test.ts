// GET /account/webhook-secret: how developers (and agents without a webhook of their own) obtain the secret that
// signs their webhooks.
import { describe, expect, it } from 'vitest';
import { registerAgent } from '../../src/accounts/registration.ts';
import { loadConfig } from '../../src/config/config.ts';
import { createAgentWithKey, createDeveloperWithKey } from '../helpers/accounts.ts';
import { useAppWithDatabase } from '../helpers/app.ts';
import { call } from '../helpers/http.ts';

const stack = useAppWithDatabase();

const getSecret = (key?: string) => call(stack, 'GET', '/account/webhook-secret', { key });

describe('GET /account/webhook-secret', () => {
  it('gives a developer a Standard Webhooks secret, created once and the same on every call', async () => {
    const developer = await createDeveloperWithKey(stack.database.prisma);
    const first = await getSecret(developer.apiKey.key);
    expect(first).toEqual({
      status: 200,
      headers: expect.anything(),
      body: {
        webhook_secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{32}$/),
        signature_header: 'webhook-signature',
        signature_algorithm: 'hmac-sha256',
      },
    });
    expect((await getSecret(developer.apiKey.key)).body.webhook_secret).toBe(first.body.webhook_secret);
    const row = await stack.database.prisma.account.findUniqueOrThrow({ where: { id: developer.developerId } });
    expect(row.webhookSecret).toBe(first.body.webhook_secret);
  });

  it('gives an agent the secret it registered with, and one to an agent registered without a webhook', async () => {
    const hooked = await registerAgent(stack.database.prisma, loadConfig({}, []), {
      agentName: 'hooked',
      webhookUrl: 'https://agent.example/hook',
      clientAddress: '203.0.113.9',
      trialNetwork: '203.0.113.9',
    });
    expect((await getSecret(hooked.apiKey.key)).body.webhook_secret).toBe(hooked.webhookSecret);
    const bare = await createAgentWithKey(stack.database.prisma);
    expect((await getSecret(bare.apiKey.key)).body.webhook_secret).toMatch(/^whsec_/);
  });

  it('needs a key', async () => {
    expect(await getSecret()).toMatchObject({ status: 401, body: { error: 'unauthorized' } });
  });
});
