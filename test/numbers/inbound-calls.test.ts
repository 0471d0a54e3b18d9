import { SandboxError } from '../../src/index.js';
import { describe, expect } from '../fixture.js';
import { KEY, OTHER_KEY } from '../helpers.js';
import { numbersClient, test as it, type NumbersClient } from './support.js';

const CALLER = '+442071234567';

const numberRoutedTo = (api: NumbersClient, routing: unknown) => api.provision({ kind: 'local', routing });

describe('inbound calls to a provisioned number follow its routing', () => {
  it("needs no apiKey: the number's account receives the call, and only that account", async ({ sandbox, api }) => {
    const n = await api.provision();
    const call = sandbox.calls.inbound({ from: CALLER, to: n.number });
    expect(call).toMatchObject({
      direction: 'inbound',
      from: CALLER,
      to: n.number,
      status: 'ringing',
      ai_receptionist: false,
      agent: null,
      extension: null,
    });
    expect((await api.get(`/v1/calls/${call.id}`)).status).toBe(200);
    expect((await numbersClient(sandbox, OTHER_KEY).get(`/v1/calls/${call.id}`)).status).toBe(404);
    expect(sandbox.events.list({ apiKey: KEY, type: 'call.started' }).map((e) => e.data.id)).toEqual([call.id]);
    await sandbox.advance('5s');
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'answered', answered_by: 'human' });
  });

  it('ai_receptionist: the AI receptionist answers', async ({ sandbox, api }) => {
    const n = await numberRoutedTo(api, { type: 'ai_receptionist' });
    const call = sandbox.calls.inbound({ from: CALLER, to: n.number });
    expect(call).toMatchObject({ ai_receptionist: true, ai_handler: 'ava' });
    await sandbox.advance('5s');
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'answered', answered_by: 'ai_receptionist', agent: 'ava' });
  });

  it("agent: the call is the agent's", async ({ sandbox, api }) => {
    const n = await numberRoutedTo(api, { type: 'agent', target: 'maria' });
    const call = sandbox.calls.inbound({ from: CALLER, to: n.number });
    expect(call).toMatchObject({ agent: 'maria', extension: null, ai_receptionist: false });
    await sandbox.advance('70s');
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'completed', disposition: 'answered', agent: 'maria' });
  });

  it('extension: the call rings that extension', async ({ sandbox, api }) => {
    const n = await numberRoutedTo(api, { type: 'extension', target: '204' });
    const call = sandbox.calls.inbound({ from: CALLER, to: n.number });
    expect(call).toMatchObject({ extension: '204', agent: null });
    expect(sandbox.events.list({ type: 'call.started' })[0]!.data).toMatchObject({ extension: '204' });
  });

  it('forward: the call to the number rings as a call to the target would (a busy target makes it busy)', async ({ sandbox, api }) => {
    const n = await numberRoutedTo(api, { type: 'forward', target: '+15005550002' });
    const call = sandbox.calls.inbound({ from: CALLER, to: n.number });
    expect(call).toMatchObject({ to: n.number, agent: null, extension: null });
    await sandbox.advance('1s');
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'completed', disposition: 'busy' });

    sandbox.network.setBehavior('+14155550177', { ring: '12s' });
    await api.put(`/v1/numbers/${n.id}`, { routing: { type: 'forward', target: '+14155550177' } });
    const second = sandbox.calls.inbound({ from: CALLER, to: n.number });
    await sandbox.advance('11s');
    expect(sandbox.calls.get(second.id)!.status).toBe('ringing');
    await sandbox.advance('1s');
    expect(sandbox.calls.get(second.id)).toMatchObject({ status: 'answered', to: n.number });
  });

  it('lets explicit options win over the routing', async ({ sandbox, api }) => {
    const n = await numberRoutedTo(api, { type: 'ai_receptionist' });
    const call = sandbox.calls.inbound({ from: CALLER, to: n.number, aiReceptionist: false, behavior: { outcome: 'no_answer' } });
    expect(call.ai_receptionist).toBe(false);
    await sandbox.advance('30s');
    expect(sandbox.calls.get(call.id)).toMatchObject({ status: 'completed', disposition: 'no_answer' });
  });

  it('follows a routing changed by PUT for the next call', async ({ sandbox, api }) => {
    const n = await numberRoutedTo(api, { type: 'agent', target: 'maria' });
    await api.put(`/v1/numbers/${n.id}`, { routing: { type: 'agent', target: 'sam' } });
    expect(sandbox.calls.inbound({ from: CALLER, to: n.number }).agent).toBe('sam');
  });
});

describe('inbound calls that nobody can receive throw a SandboxError', () => {
  it('a released number receives nothing, even given an apiKey', async ({ sandbox, api }) => {
    const n = await api.provision();
    await api.del(`/v1/numbers/${n.id}`);
    expect(() => sandbox.calls.inbound({ from: CALLER, to: n.number })).toThrow(SandboxError);
    expect(() => sandbox.calls.inbound({ from: CALLER, to: n.number, apiKey: KEY })).toThrow(/not provisioned by any account/);
    expect((await api.get('/v1/calls')).body.data).toEqual([]);
    expect(sandbox.events.list()).toEqual([]);
  });

  it('a pool number never provisioned receives nothing', async ({ sandbox, api }) => {
    const [free] = (await api.get('/v1/numbers?limit=1')).body.data;
    expect(() => sandbox.calls.inbound({ from: CALLER, to: free.number, apiKey: KEY })).toThrow(/Provision it first/);
  });

  it('a number outside the pool needs an apiKey, as before', async ({ sandbox }) => {
    expect(() => sandbox.calls.inbound({ from: CALLER, to: '+14155550100' })).toThrow(/give `apiKey`/);
    const call = sandbox.calls.inbound({ from: CALLER, to: '+14155550100', apiKey: OTHER_KEY });
    expect((await numbersClient(sandbox, OTHER_KEY).get(`/v1/calls/${call.id}`)).status).toBe(200);
  });

  it("an apiKey of another account than the number's is refused", async ({ sandbox, api }) => {
    const n = await api.provision();
    expect(() => sandbox.calls.inbound({ from: CALLER, to: n.number, apiKey: OTHER_KEY })).toThrow(/another account/);
    expect(sandbox.calls.inbound({ from: CALLER, to: n.number, apiKey: KEY }).to).toBe(n.number);
  });
});
