import { describe, expectTypeOf, it } from 'vitest';
import {
  createSandbox,
  type CallMix,
  type ChaosProfile,
  type DeliveryChaos,
  type RequestChaos,
  type SandboxOptions,
  type WebhookDelivery,
} from '../../src/index.js';

describe('chaos profile types (docs/chaos.md)', () => {
  it('createSandbox takes a profile as `chaos`', () => {
    expectTypeOf<SandboxOptions['chaos']>().toEqualTypeOf<ChaosProfile | undefined>();
    createSandbox({
      chaos: {
        requests: { default: { serverError: 0.1 }, 'POST /v1/calls': { latency: { rate: 0.5, delay: '200ms', max: 500 } } },
        calls: { no_answer: 0.2 },
      },
    }).close();
    // @ts-expect-error a mix names the API's outcomes: no_answer, not noAnswer
    createSandbox({ chaos: { calls: { noAnswer: 0.2 } } });
  });

  it('its parts, and what a delivery says chaos did', () => {
    expectTypeOf<ChaosProfile['requests']>().toEqualTypeOf<Record<string, RequestChaos> | undefined>();
    expectTypeOf<keyof CallMix>().toEqualTypeOf<'failed' | 'busy' | 'no_answer' | 'voicemail'>();
    expectTypeOf<WebhookDelivery['chaos']>().toEqualTypeOf<DeliveryChaos | undefined>();
    expectTypeOf<DeliveryChaos>().toEqualTypeOf<'duplicate' | 'held'>();
  });
});
