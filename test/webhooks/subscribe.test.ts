import { afterEach } from 'vitest';
import { SandboxError, type DeliveryState, type WebhookAttempt } from '../../src/index.js';
import { describe, expect, it } from '../fixture.js';
import { client } from '../helpers.js';
import { closeReceivers, startReceiver, subscribe } from './receivers.js';

afterEach(closeReceivers);

/** `sandbox.webhooks.subscribe`: each attempt as it settles, between steps. */
describe('sandbox.webhooks.subscribe', () => {
  it('calls the listener with each attempt and the state its delivery moved to, in order, until unsubscribed', async ({ sandbox }) => {
    const receiver = await startReceiver((_, n) => (n <= 2 ? 500 : 204), sandbox);
    await subscribe(sandbox, receiver.url, ['call.started']);
    const seen: Array<[number, number | null, DeliveryState]> = [];
    const stop = sandbox.webhooks.subscribe((attempt, state) => seen.push([attempt.attempt, attempt.status, state]));
    await client(sandbox).placeCall();
    await sandbox.advance('1m');
    expect(seen).toEqual([
      [1, 500, 'pending'],
      [2, 500, 'pending'],
    ]);
    await sandbox.advance('1m');
    expect(seen).toEqual([
      [1, 500, 'pending'],
      [2, 500, 'pending'],
      [3, 204, 'delivered'],
    ]);
    // What the listener got is what the lists hold, and a copy of it.
    expect(sandbox.webhooks.attempts().map((a) => a.attempt)).toEqual([1, 2, 3]);
    stop();
    await client(sandbox).placeCall();
    await sandbox.advance('1m');
    expect(seen).toHaveLength(3);
  });

  it('narrows by account, type and state; a listener may reset the sandbox between steps', async ({ sandbox }) => {
    const receiver = await startReceiver(() => 503, sandbox);
    await subscribe(sandbox, receiver.url, ['call.started', 'call.completed']);
    await subscribe(sandbox, receiver.url, ['call.started'], 'SVC_TEST_other');
    const mine: WebhookAttempt[] = [];
    const dead: WebhookAttempt[] = [];
    sandbox.webhooks.subscribe((attempt) => mine.push(attempt), { apiKey: 'SVC_TEST_other', type: 'call.started' });
    sandbox.webhooks.subscribe(
      (attempt) => {
        dead.push(attempt);
        sandbox.reset(); // between two steps: every record consistent, nothing after it runs
      },
      { state: 'dead' },
    );
    await client(sandbox).placeCall();
    await client(sandbox, 'SVC_TEST_other').placeCall();
    await sandbox.advance('70s');
    expect(mine.map((a) => a.attempt)).toEqual([1, 2]);
    expect(new Set(mine.map((a) => a.subscriptionId)).size).toBe(1);
    expect(dead).toEqual([]);
    // The first dead letter (24 h in) resets the sandbox; the advance it cut short says so.
    await expect(sandbox.advance('1d')).rejects.toMatchObject({ name: 'SandboxError', code: 'interrupted' });
    expect(dead).toHaveLength(1);
    expect(sandbox.webhooks.deliveries()).toEqual([]);
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
  });

  it("a listener's error is rethrown by the next advance; bad filters and a closed sandbox throw", async ({ sandbox }) => {
    const receiver = await startReceiver(() => 200, sandbox);
    await subscribe(sandbox, receiver.url, ['call.started']);
    const boom = new Error('my listener broke');
    sandbox.webhooks.subscribe(() => {
      throw boom;
    });
    await client(sandbox).placeCall();
    await expect(sandbox.advance('1s')).rejects.toMatchObject({ code: 'listener_failed', cause: boom });
    expect(sandbox.webhooks.deliveries()[0]?.state).toBe('delivered'); // delivery went on
    expect(() => sandbox.webhooks.subscribe(() => {}, { state: 'gone' as DeliveryState })).toThrow(/state/);
    sandbox.close();
    expect(() => sandbox.webhooks.subscribe(() => {})).toThrow(SandboxError);
  });
});
