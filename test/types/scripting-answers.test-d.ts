import { describe, expectTypeOf, it } from 'vitest';
import type { Infer } from '../../src/core/schema.js';
import type { ActiveFault, ApiKey, SandboxEvent, WebhookAttempt, WebhookDelivery } from '../../src/index.js';
import type {
  activeFaultSchema,
  apiKeySchema,
  attemptSchema,
  deliverySchema,
  eventSchema,
  madeKeySchema,
} from '../../src/scripting/json-schemas.js';

/**
 * What the scripting members return and the schemas the control API's document describes it
 * with are one type: a field added to one and not the other fails `tsc`, so the document
 * cannot drift from the library's answers.
 */
describe("scripting answers: the public type is the schema's type", () => {
  it('events, webhook attempts and deliveries, keys', () => {
    expectTypeOf<Infer<typeof eventSchema>>().toEqualTypeOf<SandboxEvent>();
    expectTypeOf<Infer<typeof attemptSchema>>().toEqualTypeOf<WebhookAttempt>();
    expectTypeOf<Infer<typeof deliverySchema>>().toEqualTypeOf<WebhookDelivery>();
    expectTypeOf<Infer<typeof apiKeySchema>>().toEqualTypeOf<ApiKey>();
    // POST .../keys spells the defaults out: plan and scopes always, and no createdAt.
    expectTypeOf<Infer<typeof madeKeySchema>>().toEqualTypeOf<Required<Pick<ApiKey, 'key' | 'plan' | 'scopes'>>>();
  });

  it('faults: the same fields, `remaining` as JSON writes it', () => {
    expectTypeOf<Omit<Infer<typeof activeFaultSchema>, 'remaining'>>().toEqualTypeOf<Omit<ActiveFault, 'remaining'>>();
    // The library's `Infinity` (a rule until cleared) is null in JSON.
    expectTypeOf<ActiveFault['remaining']>().toEqualTypeOf<number>();
    expectTypeOf<Infer<typeof activeFaultSchema>['remaining']>().toEqualTypeOf<number | null>();
  });
});
