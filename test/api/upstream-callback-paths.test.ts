// POST /callbacks/{provider}/{task id} with a provider name that an object lookup would find on every object's
// prototype: answered 404 like any unknown provider, never 500.
import { describe, expect, it } from 'vitest';
import { useAppWithDatabase } from '../helpers/app.ts';

const stack = useAppWithDatabase({
  config: { providers: { fal: { key: 'fal-test-key' }, replicate: { apiToken: 'r8_test' } } },
});

describe('upstream callback paths', () => {
  it.each(['constructor', 'toString', '__proto__', 'hasOwnProperty', 'valueOf', 'nobody'])(
    '/callbacks/%s/… is 404 not_found',
    async (provider) => {
      const response = await fetch(`${stack.app.url}/callbacks/${provider}/gen_0000000000000000000000`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{}',
      });
      expect(response.status).toBe(404);
      expect(await response.json()).toMatchObject({ error: 'not_found' });
    },
  );
});
