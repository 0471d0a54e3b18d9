import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, type Sandbox } from '../../src/index.js';
import { KEY } from '../helpers.js';

// Regression: IPv4-compatible (`[::169.254.169.254]`) and NAT64 (`[64:ff9b::169.254.169.254]`) spellings of the metadata address were accepted as receivers, on subscribe and from a snapshot.
const open: Sandbox[] = [];
afterEach(() => {
  for (const sandbox of open.splice(0)) sandbox.close();
});
function make(options: Parameters<typeof createSandbox>[0] = { seed: 3 }): Sandbox {
  const sandbox = createSandbox(options);
  open.push(sandbox);
  return sandbox;
}
const subscribe = (sandbox: Sandbox, url: string) =>
  sandbox.handle(
    new Request(`${sandbox.baseUrl}/v1/webhooks`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify({ url, events: ['call.started'] }),
    }),
  );
const subscriptions = async (sandbox: Sandbox) =>
  (await (await sandbox.handle(new Request(`${sandbox.baseUrl}/v1/webhooks`, { headers: { authorization: `Bearer ${KEY}` } }))).json())
    .data as Array<{ url: string }>;

const SPELLINGS = [
  'https://[::169.254.169.254]/latest',
  'https://[::ffff:169.254.169.254]/latest',
  'https://[64:ff9b::169.254.169.254]/latest',
  'https://[64:ff9b::a9fe:a9fe]/latest',
  'https://[2002:a9fe:a9fe::1]/latest',
  'https://2852039166/latest',
  'https://0xa9.0xfe.0xa9.0xfe/latest',
  'https://0251.0376.0251.0376/latest',
];

describe('every spelling of the metadata address is refused as a receiver', () => {
  it.each(SPELLINGS)('POST /v1/webhooks %s is 400 naming `url`, and subscribes nothing', async (url) => {
    const sandbox = make();
    const res = await subscribe(sandbox, url);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      code: 'invalid_parameter',
      param: 'url',
      message: expect.stringMatching(/points at a link-local or cloud-metadata address/),
    });
    expect(await subscriptions(sandbox)).toEqual([]);
  });

  it.each(SPELLINGS)(
    'a snapshot whose inputs subscribe to %s is refused on import, naming the input: nothing made, nothing sent',
    async (url) => {
      // A snapshot taken of a sandbox that subscribed to a real receiver, with the URL then edited
      // (by hand, or by a build that accepted the spelling): refused before anything is replayed.
      const original = make();
      expect((await subscribe(original, 'https://hooks.example.com/svc')).status).toBe(201);
      const edited = JSON.parse(JSON.stringify(original.snapshot()).replaceAll('https://hooks.example.com/svc', url));
      let error: unknown;
      try {
        make({ snapshot: edited });
      } catch (thrown) {
        error = thrown;
      }
      expect(error).toMatchObject({
        code: 'invalid_options',
        param: 'snapshot.inputs[0].body',
        message: expect.stringContaining(`subscribes a webhook to ${url}, a link-local or cloud-metadata address`),
      });
      expect(open).toHaveLength(1);
    },
  );
});
