import { describe, expectTypeOf, it } from 'vitest';
import {
  createSandbox,
  verifyWebhook,
  WEBHOOK_RETRY_SCHEDULE,
  type WebhookAttempt,
  type WebhookDelivery,
  type WebhookSubscription,
} from '../../src/index.js';

describe('webhook surface types', () => {
  it('verifyWebhook takes a string or bytes and returns a boolean', () => {
    expectTypeOf(verifyWebhook).toBeCallableWith('{}', 'ab', 'whsec_x');
    expectTypeOf(verifyWebhook).toBeCallableWith(new Uint8Array(), 'ab', 'whsec_x');
    expectTypeOf(verifyWebhook).toBeCallableWith(Buffer.from('{}'), 'ab', 'whsec_x');
    expectTypeOf(verifyWebhook).returns.toEqualTypeOf<boolean>();
  });

  it('sandbox.webhooks lists and replays', () => {
    const sandbox = createSandbox();
    expectTypeOf(sandbox.webhooks.deliveries).returns.toEqualTypeOf<WebhookDelivery[]>();
    expectTypeOf(sandbox.webhooks.deadLetters).returns.toEqualTypeOf<WebhookDelivery[]>();
    expectTypeOf(sandbox.webhooks.attempts).returns.toEqualTypeOf<WebhookAttempt[]>();
    expectTypeOf(sandbox.webhooks.replay).returns.toEqualTypeOf<Promise<WebhookAttempt[]>>();
    expectTypeOf(sandbox.webhooks.replayAll).returns.toEqualTypeOf<Promise<WebhookAttempt[]>>();
    expectTypeOf<WebhookDelivery['state']>().toEqualTypeOf<'pending' | 'delivered' | 'dead' | 'canceled'>();
    expectTypeOf<WebhookAttempt['status']>().toEqualTypeOf<number | null>();
    expectTypeOf(WEBHOOK_RETRY_SCHEDULE).toEqualTypeOf<readonly number[]>();
    expectTypeOf<WebhookSubscription['secret']>().toEqualTypeOf<string | undefined>();
  });
});
