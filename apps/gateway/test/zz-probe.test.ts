import { it } from 'vitest';
import { startTestGateway } from './harness.ts';

it('probe', async () => {
  const h = await startTestGateway({
    model: { fallback: { fault: { type: 'rate_limit', retryAfterSeconds: 42 } } },
    config: {
      auth: {
        profiles: { 'anthropic:main': { provider: 'anthropic', mode: 'api_key', apiKey: 'test-key' } },
      },
    },
  });
  const c = await h.connect({ caps: ['tool-events'] });
  const t0 = Date.now();
  await c.request('chat.send', { sessionKey: 'main', message: 'hi', idempotencyKey: 'k1' });
  const e = await c.waitForEvent(
    (ev) => ev.event === 'chat' && ['error', 'final'].includes(String(ev.payload?.state)),
    60000,
  );
  console.log(Date.now() - t0, JSON.stringify(e.payload));
  const s = await c.request('status', {});
  console.log(JSON.stringify(s.payload, null, 1));
  await h.close();
}, 120000);
