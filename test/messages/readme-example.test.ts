import { afterEach, beforeEach, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';

// The "Numbers and messages" example of README.md, as written there.
let sandbox: Sandbox;
beforeEach(() => {
  sandbox = createSandbox({ seed: 42 });
  sandbox.listen();
});
afterEach(() => sandbox.close());

it('runs the README example', async () => {
  const api = (method: string, path: string, body?: unknown) =>
    fetch(`https://api.svc.test${path}`, {
      method,
      headers: { authorization: 'Bearer SVC_TEST_mykey', 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    }).then((r) => r.json());

  const num = await api('POST', '/v1/numbers', { kind: 'local', area_code: '415', routing: { type: 'ai_receptionist' } });
  const msg = await api('POST', '/v1/messages', { from: num.number, to: '+14155550123', body: 'Your table is ready' });
  await sandbox.advance('3s');
  sandbox.messages.inbound({ from: '+14155550123', to: num.number, body: 'On my way' });
  const call = sandbox.calls.inbound({ from: '+14155550123', to: num.number });
  const thread = await api('GET', `/v1/messages?conversation_id=${msg.conversation_id}`);

  expect(thread.data.map((m: any) => [m.direction, m.status, m.body])).toEqual([
    ['inbound', 'received', 'On my way'],
    ['outbound', 'delivered', 'Your table is ready'],
  ]);
  expect(call).toMatchObject({ ai_receptionist: true, direction: 'inbound', to: num.number });
  expect(sandbox.events.list().map((e) => e.type)).toEqual(['message.delivered', 'message.received', 'call.started']);
});
