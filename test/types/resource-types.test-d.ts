import { describe, expectTypeOf, it } from 'vitest';
import type { Infer } from '../../src/core/schema.js';
import type {
  AvailableNumber,
  Call,
  Campaign,
  Message,
  NumberRouting,
  PhoneNumber,
  Recording,
  Transcript,
  WebhookSubscription,
} from '../../src/index.js';
import type * as events from '../../src/state/events.js';
import type * as resources from '../../src/state/resources.js';

/** Each generated resource type is exactly its schema's type: a field added to one and not the other fails `tsc`. */
describe('the generated resource types are their schemas’ types', () => {
  it('field for field', () => {
    expectTypeOf<Call>().toEqualTypeOf<Infer<typeof resources.callSchema>>();
    expectTypeOf<Campaign>().toEqualTypeOf<Infer<typeof resources.campaignSchema>>();
    expectTypeOf<NumberRouting>().toEqualTypeOf<Infer<typeof resources.routingSchema>>();
    expectTypeOf<PhoneNumber>().toEqualTypeOf<Infer<typeof resources.phoneNumberSchema>>();
    expectTypeOf<AvailableNumber>().toEqualTypeOf<Infer<typeof resources.availableNumberSchema>>();
    expectTypeOf<Message>().toEqualTypeOf<Infer<typeof resources.messageSchema>>();
    expectTypeOf<Transcript>().toEqualTypeOf<Infer<typeof resources.transcriptSchema>>();
    expectTypeOf<Recording>().toEqualTypeOf<Infer<typeof resources.recordingSchema>>();
    expectTypeOf<Omit<WebhookSubscription, 'secret'>>().toEqualTypeOf<Infer<typeof events.subscriptionSchema>>();
  });
});
