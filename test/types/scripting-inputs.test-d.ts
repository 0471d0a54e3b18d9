import { describe, expectTypeOf, it } from 'vitest';
import type { Infer } from '../../src/core/schema.js';
import type { answerOptions, inboundCallOptions, AnswerOptions, InboundCallOptions } from '../../src/scripting/calls.js';
import type { faultRule } from '../../src/scripting/faults.js';
import type { keyOptions, keySettings, KeyCreateOptions } from '../../src/scripting/keys.js';
import type { timingOptions } from '../../src/scripting/media.js';
import type { inboundMessageOptions, InboundMessageOptions } from '../../src/scripting/messages.js';
import type { callBehavior, messageBehavior } from '../../src/scripting/network.js';
import type { webhookFilter, WebhookFilter } from '../../src/scripting/webhooks.js';
import type { CallBehavior, MessageBehavior } from '../../src/sim/carrier.js';
import type { KeyOptions } from '../../src/state/accounts.js';
import type { FaultRule } from '../../src/state/faults.js';
import type { RecordingTiming } from '../../src/state/recordings.js';

/**
 * Each scripting input's documented type and the schema that checks it are one type: a field added to one and not the other fails `tsc`, so the library, the control API
 * (whose rows are typed by these schemas) and the OpenAPI document cannot drift apart.
 */
describe("scripting inputs: the documented type is the schema's type", () => {
  it('calls, messages, network, faults, recordings, webhooks, keys', () => {
    expectTypeOf<Infer<typeof inboundCallOptions>>().toEqualTypeOf<InboundCallOptions>();
    expectTypeOf<Infer<typeof answerOptions>>().toEqualTypeOf<AnswerOptions>();
    expectTypeOf<Infer<typeof inboundMessageOptions>>().toEqualTypeOf<InboundMessageOptions>();
    expectTypeOf<Infer<typeof callBehavior>>().toEqualTypeOf<CallBehavior>();
    expectTypeOf<Infer<typeof messageBehavior>>().toEqualTypeOf<MessageBehavior>();
    expectTypeOf<Infer<typeof faultRule>>().toEqualTypeOf<FaultRule>();
    expectTypeOf<Infer<typeof timingOptions>>().toEqualTypeOf<RecordingTiming>();
    expectTypeOf<Infer<typeof webhookFilter>>().toEqualTypeOf<WebhookFilter>();
    expectTypeOf<Infer<typeof keySettings>>().toEqualTypeOf<KeyOptions>();
    expectTypeOf<Infer<typeof keyOptions>>().toEqualTypeOf<KeyCreateOptions>();
  });
});
