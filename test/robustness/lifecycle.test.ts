import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type Sandbox } from '../../src/index.js';
import { client, FROM, KEY, TO } from '../helpers.js';
import { closedPortUrl, closeReceivers, startReceiver, subscribe } from '../webhooks/receivers.js';
import { within } from '../support/within.js';

/**
 * The sandbox is safe at every moment of its lifecycle. Each test's first line
 * names the bug it pins.
 */
const open: Sandbox[] = [];
function make(options: Parameters<typeof createSandbox>[0] = {}): Sandbox {
  const sandbox = createSandbox({ seed: 7, ...options }).listen();
  open.push(sandbox);
  return sandbox;
}
afterEach(async () => {
  for (const sandbox of open.splice(0)) sandbox.close();
  await closeReceivers();
});

const post = (sandbox: Sandbox, path: string, body: unknown) =>
  sandbox.handle(
    new Request(`${sandbox.baseUrl}${path}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }),
  );
const get = (sandbox: Sandbox, path: string) =>
  sandbox.handle(new Request(`${sandbox.baseUrl}${path}`, { headers: { authorization: `Bearer ${KEY}` } }));

describe('close() or reset() while advance() runs', () => {
  it('regression: close() from an event listener during advance() hung the process in the clock loop', async () => {
    const sandbox = make();
    const seen: string[] = [];
    sandbox.events.subscribe((event) => {
      seen.push(event.type);
      if (event.type === 'call.answered') sandbox.close();
    });
    await post(sandbox, '/v1/calls', { to: TO, from: FROM });
    const error = await sandbox.advance('2m').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'interrupted', message: expect.stringMatching(/closed while it ran/) });
    // No later event fired: the call never completed.
    expect(seen).toEqual(['call.started', 'call.answered']);
  });

  it('regression: reset() from an event listener during advance() hung; now the advance rejects and nothing from before fires', async () => {
    const sandbox = make();
    const seen: string[] = [];
    let resets = 0;
    sandbox.events.subscribe((event) => {
      seen.push(event.type);
      if (event.type === 'call.answered' && resets++ === 0) sandbox.reset();
    });
    await post(sandbox, '/v1/calls', { to: TO, from: FROM });
    await expect(sandbox.advance('2m')).rejects.toMatchObject({
      code: 'interrupted',
      message: expect.stringMatching(/reset while it ran/),
    });
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:00.000Z');
    // No timer was left behind: a day of virtual time fires nothing from before the reset.
    await sandbox.advance('1d');
    expect(seen).toEqual(['call.started', 'call.answered']);
    expect(sandbox.events.list()).toEqual([]);
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('regression: close() while advance() awaited a hanging webhook receiver left the worker spinning; the advance settles at once', async () => {
    let arrived!: () => void;
    const inFlight = new Promise<void>((resolve) => (arrived = resolve));
    const receiver = await startReceiver(() => {
      arrived();
      return 'hang';
    });
    // An hour's timeout: an advance that still waited for the attempt would wait that long.
    const sandbox = make({ webhookTimeout: '1h' });
    await subscribe(sandbox, receiver.url, ['call.started']);
    await post(sandbox, '/v1/calls', { to: TO, from: FROM });
    const advancing = sandbox.advance('1m');
    await inFlight; // the attempt is in flight, and would hang for an hour of real time
    sandbox.close();
    // Settling takes milliseconds once close() cuts the attempt; the bound only turns a hang into a failure.
    await expect(within(advancing, 5_000, 'the advance after close()')).rejects.toMatchObject({ code: 'interrupted' });
  });

  it('an advance queued behind one that a reset interrupted belongs to the old world and rejects; one made after the reset runs', async () => {
    const sandbox = make();
    sandbox.events.subscribe((event) => {
      if (event.type === 'call.answered') sandbox.reset();
    });
    await post(sandbox, '/v1/calls', { to: TO, from: FROM });
    const first = sandbox.advance('10s');
    const queued = sandbox.advance('10s');
    await expect(first).rejects.toMatchObject({ code: 'interrupted' });
    await expect(queued).rejects.toMatchObject({ code: 'interrupted' });
    await sandbox.advance('10s');
    expect(sandbox.now().toISOString()).toBe('2026-01-01T00:00:10.000Z');
  });
});

describe('the clock stays within the Date range', () => {
  it("regression: advance('99999999999d') and advance(1e308) were accepted and made now() an Invalid Date", async () => {
    const sandbox = make();
    await expect(sandbox.advance('99999999999d')).rejects.toThrow(SandboxError);
    await expect(sandbox.advance(1e308)).rejects.toThrow(/not a duration/);
    expect(sandbox.now().getTime()).toBe(Date.parse('2026-01-01T00:00:00Z'));
  });

  it('regression: a startTime beyond ±8.64e15 ms was accepted', () => {
    expect(() => make({ startTime: 8.64e15 + 1 })).toThrow(SandboxError);
    expect(() => make({ startTime: -8.64e15 - 1 })).toThrow(/outside the range a Date can hold/);
    expect(make({ startTime: 8.64e15 }).now().toISOString()).toBe('+275760-09-13T00:00:00.000Z');
  });

  it('regression: advancing past the last instant a Date holds broke now(); it is refused and time stays put', async () => {
    const sandbox = make({ startTime: 8.64e15 - 1_000 });
    await expect(sandbox.advance('2s')).rejects.toThrow(/past the last instant a Date can hold/);
    await sandbox.advance('1s');
    expect(sandbox.now().getTime()).toBe(8.64e15);
    // The API keeps answering at the very last instant, 500 path included.
    const res = await post(sandbox, '/v1/calls', { to: TO, from: FROM });
    expect(res.status).toBe(201);
    expect((await res.json()).created_at).toBe('+275760-09-13T00:00:00.000Z');
  });
});

describe('reset() during a burst of requests', () => {
  it('regression: a call accepted just before a reset drove the new call that got the same id, emitting its events twice', async () => {
    const sandbox = make();
    let resets = 0;
    sandbox.events.subscribe((event) => {
      if (event.type === 'call.started' && resets++ === 0) sandbox.reset();
    });
    const burst = await Promise.all(Array.from({ length: 5 }, () => post(sandbox, '/v1/calls', { to: TO, from: FROM })));
    // The reset ran in the first one's step; the others were reading their bodies: from before
    // the reset, they are refused (503) rather than touching the world after it.
    expect(burst[0]!.status).toBe(201);
    for (const res of burst.slice(1)) expect([201, 503]).toContain(res.status);
    const wave = await Promise.all(Array.from({ length: 5 }, () => post(sandbox, '/v1/calls', { to: TO, from: FROM })));
    expect(wave.map((r) => r.status)).toEqual([201, 201, 201, 201, 201]);
    await sandbox.advance('2m');
    const events = sandbox.events.list();
    const seen = new Set<string>();
    for (const event of events) {
      const key = `${event.type} ${(event.data as { id: string }).id}`;
      expect(seen.has(key), `${key} emitted twice`).toBe(false);
      seen.add(key);
    }
    // Every event is of a call that exists, and every call ran its whole life once.
    const calls = (await (await get(sandbox, '/v1/calls')).json()).data as Array<{ id: string; status: string }>;
    expect(calls.length).toBeGreaterThanOrEqual(5);
    expect(calls.every((c) => c.status === 'completed')).toBe(true);
    expect(events.filter((e) => e.type === 'call.completed')).toHaveLength(calls.length);
    expect(sandbox.internalErrors()).toEqual([]);
  });

  it('regression: a request whose body was still arriving when reset() ran created its call in the new world; it is refused with 503 and changes nothing', async () => {
    const sandbox = make();
    let push!: ReadableStreamDefaultController<Uint8Array>;
    const body = new ReadableStream<Uint8Array>({ start: (c) => void (push = c) });
    const pending = sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    push.enqueue(new TextEncoder().encode(`{"to":"${TO}",`));
    await Promise.resolve();
    sandbox.reset();
    push.enqueue(new TextEncoder().encode(`"from":"${FROM}"}`));
    push.close();
    const res = await pending;
    expect(res.status).toBe(503);
    expect((await res.json()).error).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringMatching(/reset or closed while this request was in flight/),
    });
    expect((await (await get(sandbox, '/v1/calls')).json()).data).toEqual([]);
    expect(sandbox.events.list()).toEqual([]);
  });
});

/**
 * One script of requests and clock moves; every response's status, headers and body, in order.
 * `hooks` is the subscription's receiver: a closed local port, so the attempts fail at once
 * (no DNS lookup, no real network; https://example.com/hooks cost some 5 s here).
 */
async function script(sandbox: Sandbox, hooks: string): Promise<string[]> {
  const out: string[] = [];
  /** Records the whole response and returns its parsed body. */
  const record = async (pending: Promise<Response>): Promise<any> => {
    const res = await pending;
    const text = await res.text();
    out.push(`${res.status} ${JSON.stringify([...res.headers])} ${text}`);
    return text ? JSON.parse(text) : null;
  };
  for (const to of [TO, '+15005550002', '+14155550199']) await record(post(sandbox, '/v1/calls', { to, from: FROM }));
  await sandbox.advance('3s');
  await record(get(sandbox, '/v1/calls?limit=2'));
  const page = await record(get(sandbox, '/v1/calls?limit=1'));
  await record(get(sandbox, `/v1/calls?limit=1&cursor=${page.next_cursor}`));
  const found = await record(get(sandbox, '/v1/numbers?kind=local&limit=2'));
  await record(get(sandbox, `/v1/numbers?kind=local&limit=2&cursor=${found.next_cursor}`));
  const number = await record(post(sandbox, '/v1/numbers', { number: found.data[0].number }));
  await record(post(sandbox, '/v1/messages', { from: number.number, to: TO, body: 'hello' }));
  await record(post(sandbox, '/v1/webhooks', { url: hooks, events: ['call.completed'] }));
  await sandbox.advance('2m');
  await record(get(sandbox, '/v1/recordings'));
  await record(get(sandbox, '/v1/messages?limit=1'));
  await record(get(sandbox, '/v1/nope'));
  out.push(JSON.stringify(sandbox.events.list()), sandbox.now().toISOString());
  return out;
}

describe('reset() starts everything over', () => {
  it("regression: after a reset next_cursor differed from a fresh sandbox's; now one script gives every response byte for byte as on a fresh sandbox", async () => {
    const hooks = await closedPortUrl();
    const first = make({ seed: 3 });
    const fresh = await script(first, hooks);
    first.close(); // one base URL listens once at a time
    const used = make({ seed: 3 });
    await script(used, hooks);
    await post(used, '/v1/calls', { to: '+14155550177', from: FROM }); // more state than the script makes
    used.network.setBehavior(TO, { outcome: 'failed' });
    used.faults.inject({ path: '/v1/nothing', times: Infinity });
    await used.advance('5h');
    used.reset();
    const again = await script(used, hooks);
    expect(again).toHaveLength(fresh.length);
    for (let i = 0; i < fresh.length; i++) expect(again[i], `response ${i}`).toBe(fresh[i]);
  });

  it('regression: cursors from before a reset still validated; they are refused with 400', async () => {
    const sandbox = make();
    for (let i = 0; i < 3; i++) await post(sandbox, '/v1/calls', { to: TO, from: FROM });
    const { next_cursor: cursor } = await (await get(sandbox, '/v1/calls?limit=1')).json();
    expect(cursor).toEqual(expect.any(String));
    sandbox.reset();
    const res = await get(sandbox, `/v1/calls?limit=1&cursor=${cursor}`);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      code: 'invalid_parameter',
      param: 'cursor',
      message: expect.stringMatching(/before a reset/),
    });
    // A reset world that reaches the same position with the same items (same seed, same
    // number of calls: the same ids) accepts it: the cursor names the same place again.
    for (let i = 0; i < 3; i++) await post(sandbox, '/v1/calls', { to: '+14155550188', from: '+14155550101' });
    expect((await get(sandbox, `/v1/calls?limit=1&cursor=${cursor}`)).status).toBe(200);
  });
});

describe('handle() serves only its own base URL', () => {
  it('regression: handle(https://evil.example/v1/calls) got 200; it is 404 naming the base URL', async () => {
    const sandbox = make();
    const res = await sandbox.handle(new Request('https://evil.example/v1/calls', { headers: { authorization: `Bearer ${KEY}` } }));
    expect(res.status).toBe(404);
    expect((await res.json()).error.message).toMatch(/This sandbox serves https:\/\/api\.svc\.test\/v1\//);
  });

  it('regression: with base path /base, /zzzzz/v1/calls got 200 and a garbled 404 message ("No endpoint GET alls")', async () => {
    const sandbox = make({ baseUrl: 'https://api.svc.test/base' });
    const outside = await sandbox.handle(
      new Request('https://api.svc.test/zzzzz/v1/calls', { headers: { authorization: `Bearer ${KEY}` } }),
    );
    expect(outside.status).toBe(404);
    expect((await outside.json()).error.message).toMatch(/serves https:\/\/api\.svc\.test\/base\/v1\/…/);
    const prefixOnly = await sandbox.handle(
      new Request('https://api.svc.test/basement/v1/calls', { headers: { authorization: `Bearer ${KEY}` } }),
    );
    expect(prefixOnly.status).toBe(404);
    const unknown = await sandbox.handle(new Request('https://api.svc.test/base/v1/alls', { headers: { authorization: `Bearer ${KEY}` } }));
    expect((await unknown.json()).error.message).toMatch(/^No endpoint GET \/v1\/alls\./);
    expect(
      (await sandbox.handle(new Request('https://api.svc.test/base/v1/calls', { headers: { authorization: `Bearer ${KEY}` } }))).status,
    ).toBe(200);
  });
});

describe('webhook targets: no link-local or metadata address', () => {
  it.each([
    'http://169.254.169.254/latest/meta-data',
    'https://169.254.0.1/hooks',
    'http://2852039166/',
    'https://[fe80::1]/hooks',
    'https://[febf::1]/hooks',
    'https://[fd00:ec2::254]/latest',
    'https://[::ffff:169.254.169.254]/x',
    'https://metadata.google.internal/computeMetadata/v1/',
  ])('regression: link-local and cloud-metadata addresses were accepted as receivers: %s is 400', async (url) => {
    const sandbox = make();
    const res = await post(sandbox, '/v1/webhooks', { url, events: ['call.started'] });
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({
      param: 'url',
      message: expect.stringMatching(/link-local or cloud-metadata|must use https/),
    });
  });

  it('regression: the trailing-dot spelling of the sandbox host (api.svc.test.) was another receiver; it is the sandbox itself', async () => {
    const sandbox = make();
    for (const url of ['https://api.svc.test./hooks', 'https://API.SVC.TEST./hooks', 'https://api.svc.test:443/hooks']) {
      const res = await post(sandbox, '/v1/webhooks', { url, events: ['call.started'] });
      expect(res.status, url).toBe(400);
      expect((await res.json()).error.message, url).toMatch(/points at the sandbox itself/);
    }
    expect((await post(sandbox, '/v1/webhooks', { url: 'https://api.svc.test.example/hooks', events: ['call.started'] })).status).toBe(201);
  });
});

describe('webhook concurrency', () => {
  it('regression: attempts due at one instant for different subscriptions ran one after another; they now run side by side', async () => {
    // Each receiver answers only once every receiver has its request: one after another, the
    // first would time out waiting for the second.
    const expected = 3;
    let arrived = 0;
    const waiting: Array<() => void> = [];
    const { createServer } = await import('node:http');
    const servers = await Promise.all(
      Array.from({ length: expected }, async () => {
        const server = createServer((req, res) => {
          req.resume();
          waiting.push(() => res.writeHead(200).end('ok'));
          if (++arrived === expected) for (const answer of waiting) answer();
        });
        await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
        return server;
      }),
    );
    try {
      const sandbox = make({ webhookTimeout: '3s' });
      for (const server of servers)
        await subscribe(sandbox, `http://127.0.0.1:${(server.address() as { port: number }).port}/hooks`, ['call.started']);
      await post(sandbox, '/v1/calls', { to: TO, from: FROM });
      await sandbox.advance('1s');
      const attempts = sandbox.webhooks.attempts();
      expect(attempts).toHaveLength(expected);
      expect(attempts.map((a) => a.status)).toEqual([200, 200, 200]);
    } finally {
      for (const server of servers) {
        server.closeAllConnections();
        server.close();
      }
    }
  });

  it("regression: eleven or more attempts in flight printed MaxListenersExceededWarning into the user's process", async () => {
    const warnings: Error[] = [];
    const onWarning = (warning: Error) => warnings.push(warning);
    process.on('warning', onWarning);
    try {
      const count = 12;
      let arrived = 0;
      const waiting: Array<() => void> = [];
      const receiver = await startReceiver(() => 200);
      const { createServer } = await import('node:http');
      const server = createServer((req, res) => {
        req.resume();
        waiting.push(() => res.writeHead(200).end('ok'));
        if (++arrived === count) for (const answer of waiting) answer();
      });
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
      const sandbox = make({ webhookTimeout: '5s' });
      for (let i = 0; i < count; i++)
        await subscribe(sandbox, `http://127.0.0.1:${(server.address() as { port: number }).port}/h${i}`, ['call.started']);
      await subscribe(sandbox, receiver.url, ['call.started']);
      await post(sandbox, '/v1/calls', { to: TO, from: FROM });
      await sandbox.advance('1s');
      expect(sandbox.webhooks.attempts().filter((a) => a.ok)).toHaveLength(count + 1);
      server.closeAllConnections();
      server.close();
      await new Promise((resolve) => setImmediate(resolve));
      expect(warnings.filter((w) => w.name === 'MaxListenersExceededWarning')).toEqual([]);
    } finally {
      process.off('warning', onWarning);
    }
  });
});

describe('memory under hostile input', () => {
  it('regression: a 200 MB body was read in full before the 413; reading stops at the limit', async () => {
    const sandbox = make();
    const chunk = new Uint8Array(64 * 1024).fill(0x20);
    let pulled = 0;
    const body = new ReadableStream<Uint8Array>({
      pull(controller) {
        if (pulled >= 200 * 1024 * 1024) return controller.close();
        pulled += chunk.byteLength;
        controller.enqueue(chunk);
      },
    });
    const res = await sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body,
        duplex: 'half',
      } as RequestInit),
    );
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe('payload_too_large');
    expect(pulled).toBeLessThan(2 * 1024 * 1024);
  });
});

describe('consistency of the library surface', () => {
  it('regression: handle() on a closed sandbox threw synchronously from a function that returns a promise; it rejects', async () => {
    const sandbox = make();
    sandbox.close();
    let returned: Promise<Response> | undefined;
    expect(() => (returned = sandbox.handle(new Request(`${sandbox.baseUrl}/v1/calls`)))).not.toThrow();
    await expect(returned).rejects.toMatchObject({ code: 'closed' });
  });

  it('regression: webhooks.replay(badId) threw synchronously; it rejects', async () => {
    const sandbox = make();
    let returned: Promise<unknown> | undefined;
    expect(() => (returned = sandbox.webhooks.replay('dlv_nope'))).not.toThrow();
    await expect(returned).rejects.toMatchObject({ code: 'not_found', param: 'id' });
    expect(() => (returned = sandbox.webhooks.replayAll({ nope: 1 } as never))).not.toThrow();
    await expect(returned).rejects.toThrow(/Unknown option `nope`/);
  });

  it('regression: a message body and a transfer agent accepted NUL and lone surrogates while caller_id refused control characters; one rule refuses them everywhere', async () => {
    const sandbox = make();
    const api = client(sandbox);
    const number = (await api.post('/v1/numbers', { kind: 'local', area_code: '415' })).body;
    for (const body of ['a\u0000b', 'a\ud800b', 'a\u001bb']) {
      const res = await api.post('/v1/messages', { from: number.number, to: TO, body });
      expect(res.status, JSON.stringify(body)).toBe(400);
      expect(res.body.error.param).toBe('body');
    }
    expect((await api.post('/v1/messages', { from: number.number, to: TO, body: 'line one\nline two\t😀' })).status).toBe(201);
    const call = (await api.placeCall()).body;
    await sandbox.advance('5s');
    expect((await api.post(`/v1/calls/${call.id}/transfer`, { agent: 'ma\nria' })).body.error.param).toBe('agent');
    expect(() => sandbox.messages.inbound({ from: TO, to: number.number, body: 'x\u0000' })).toThrow(
      /`body` must not contain control characters/,
    );
  });

  it("regression: messages.inbound had its own copy of the MMS rules (10 hard-coded, no control-character check); it uses the API's", async () => {
    const sandbox = make();
    const api = client(sandbox);
    const number = (await api.post('/v1/numbers', { kind: 'local', area_code: '415' })).body;
    const eleven = Array.from({ length: 11 }, (_, i) => `https://example.com/${i}.png`);
    const viaApi = await api.post('/v1/messages', { from: number.number, to: TO, media_urls: eleven });
    expect(viaApi.body.error.message).toMatch(/must hold 0 to 10 items/);
    expect(() => sandbox.messages.inbound({ from: TO, to: number.number, mediaUrls: eleven })).toThrow(
      /`mediaUrls` must hold 0 to 10 items/,
    );
    expect(() => sandbox.messages.inbound({ from: TO, to: number.number, mediaUrls: ['https://example.com/\u0000.png'] })).toThrow(
      /control characters/,
    );
  });
});

describe('event order at one instant', () => {
  it('regression: with recordingDelay 0, recording.ready was logged before the call.completed it follows', async () => {
    const sandbox = make();
    sandbox.recordings.setTiming({ recordingDelay: 0, transcriptDelay: 0 });
    const heard: string[] = [];
    sandbox.events.subscribe((event) => heard.push(event.type));
    await post(sandbox, '/v1/calls', { to: TO, from: FROM });
    await sandbox.advance('65s');
    const order = ['call.started', 'call.answered', 'call.completed', 'recording.ready', 'transcript.ready'];
    expect(sandbox.events.list().map((e) => e.type)).toEqual(order);
    expect(heard).toEqual(order);
    expect(
      new Set(
        sandbox.events
          .list()
          .slice(2)
          .map((e) => e.created_at),
      ).size,
    ).toBe(1); // all at the hang-up
  });
});
