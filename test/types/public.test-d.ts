import { describe, expectTypeOf, it } from 'vitest';
import {
  createSandbox,
  type SandboxError,
  type ActiveFault,
  type Call,
  type CallBehavior,
  type FaultRule,
  type MessageBehavior,
  type Sandbox,
  type SandboxEvent,
  type SandboxOptions,
} from '../../src/index.js';

describe('public surface types', () => {
  it('createSandbox takes optional options and returns a Sandbox', () => {
    expectTypeOf(createSandbox).parameter(0).toEqualTypeOf<SandboxOptions | undefined>();
    expectTypeOf(createSandbox()).toEqualTypeOf<Sandbox>();
  });

  it('allowHosts takes host names and RegExps, as nock’s enableNetConnect does', () => {
    expectTypeOf<SandboxOptions['allowHosts']>().toEqualTypeOf<readonly (string | RegExp)[] | undefined>();
    createSandbox({ allowHosts: ['localhost', '127.0.0.1:3000', /\.internal$/] });
    // @ts-expect-error: one host is still a list
    createSandbox({ allowHosts: 'localhost' });
  });

  it('the contract’s members have the contract’s signatures', () => {
    const sandbox = createSandbox();
    expectTypeOf(sandbox.listen).returns.toEqualTypeOf<Sandbox>();
    expectTypeOf(sandbox.close).returns.toEqualTypeOf<void>();
    expectTypeOf(sandbox.advance).returns.toEqualTypeOf<Promise<void>>();
    expectTypeOf(sandbox.now).returns.toEqualTypeOf<Date>();
    expectTypeOf(sandbox.handle).parameter(0).toEqualTypeOf<Request>();
    expectTypeOf(sandbox.handle).returns.toEqualTypeOf<Promise<Response>>();
  });

  it('scripting returns API shapes', () => {
    const sandbox = createSandbox();
    expectTypeOf(sandbox.calls.get).returns.toEqualTypeOf<Call | undefined>();
    expectTypeOf(sandbox.calls.answer).returns.toEqualTypeOf<Call>();
    expectTypeOf(sandbox.events.list).returns.toEqualTypeOf<SandboxEvent[]>();
    expectTypeOf<CallBehavior['outcome']>().toEqualTypeOf<'answered' | 'busy' | 'no_answer' | 'failed' | 'unreachable' | undefined>();
    expectTypeOf<Call['status']>().toEqualTypeOf<'ringing' | 'answered' | 'completed'>();
    expectTypeOf(sandbox.faults.inject).parameter(0).toEqualTypeOf<FaultRule | undefined>();
    expectTypeOf(sandbox.network.setMessageBehavior).parameter(1).toEqualTypeOf<MessageBehavior>();
    expectTypeOf<MessageBehavior['outcome']>().toEqualTypeOf<'delivered' | 'failed' | undefined>();
    expectTypeOf(sandbox.faults.list).returns.toEqualTypeOf<ActiveFault[]>();
    expectTypeOf<FaultRule['method']>().toEqualTypeOf<'GET' | 'POST' | 'PUT' | 'DELETE' | undefined>();
  });

  it('SandboxError is an Error', () => {
    expectTypeOf<SandboxError>().toMatchTypeOf<Error>();
  });
});
