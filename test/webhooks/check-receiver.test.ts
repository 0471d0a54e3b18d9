import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { performance } from 'node:perf_hooks';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { checkReceiver, createSandbox, EVENT_TYPES, SandboxError, verifyWebhook, type ReceiverCheck } from '../../src/index.js';
import { closedPortUrl, closeReceivers, type Received, startReceiver } from './receivers.js';

/**
 * `checkReceiver()` (docs/webhooks.md, "Check your receiver") against real `node:http`
 * receivers on 127.0.0.1, each with a bug the check must name, or none.
 */
afterEach(async () => {
  vi.useRealTimers();
  await closeReceivers();
});

const SECRET = 'whsec_check0receiver0secret0000000';
const SIGNED = [...EVENT_TYPES.map((type) => `signed/${type}`), 'signed/spaced-json'];
const FORGED = ['forged/no-signature', 'forged/wrong-signature', 'forged/other-body', 'forged/other-secret'];
const CASES = [...SIGNED, ...FORGED, 'duplicate'];

const verified = (request: Received, raw: Buffer | string = request.raw) =>
  verifyWebhook(raw, String(request.headers['x-service-signature'] ?? ''), SECRET);
/** Verifies the raw bytes, then answers 204, duplicates included: the receiver docs/webhooks.md asks for. */
const correct = (request: Received) => (verified(request) ? 204 : 401);
const failed = (check: ReceiverCheck) => check.cases.filter((c) => !c.ok).map((c) => c.case);

describe('checkReceiver', () => {
  it('passes a receiver that verifies the raw body and answers 2xx to a duplicate, sending what the service would', async () => {
    const receiver = await startReceiver(correct);
    const check = await checkReceiver(receiver.url, { secret: SECRET });
    expect(check.ok).toBe(true);
    expect(check.cases.map((c) => c.case)).toEqual(CASES);
    for (const c of check.cases) {
      expect(c).toMatchObject({ expected: c.case.startsWith('forged/') ? 'not 2xx' : '2xx', ok: true, error: null });
      expect(c.status).toBe(c.case.startsWith('forged/') ? 401 : 204);
      // Real milliseconds to the answer: a whole number, within the 10 s timeout it was answered in.
      expect(Number.isInteger(c.ms) && c.ms >= 0 && c.ms < 10_000).toBe(true);
    }

    const seen = receiver.received;
    expect(seen).toHaveLength(CASES.length);
    expect(seen.slice(0, 7).map((r) => r.body.type)).toEqual(EVENT_TYPES);
    for (const r of seen) {
      expect(Object.keys(r.body)).toEqual(['id', 'type', 'created_at', 'data']);
      expect(r.body.id).toMatch(/^evt_[0-9A-Za-z]{16}$/);
      expect(r.headers).toMatchObject({
        'content-type': 'application/json',
        'x-service-event-id': r.body.id,
        'x-service-event-type': r.body.type,
      });
      // Dated as recent events: in the minutes before the run, never ahead of it.
      const age = Date.now() - Date.parse(r.body.created_at);
      expect(age).toBeGreaterThan(0);
      expect(age).toBeLessThan(10 * 60_000);
    }
    // Every delivery but the duplicate is an event of its own; the duplicate is the first, byte for byte, as a retry.
    expect(new Set(seen.map((r) => r.body.id)).size).toBe(CASES.length - 1);
    const [first, duplicate] = [seen[0]!, seen.at(-1)!];
    expect(duplicate.raw.equals(first.raw)).toBe(true);
    expect(duplicate.headers['x-service-signature']).toBe(first.headers['x-service-signature']);
    expect([first.headers['x-service-delivery-attempt'], duplicate.headers['x-service-delivery-attempt']]).toEqual(['1', '2']);
    // Bodies as the sandbox delivers them: pretty-printed, never equal to their re-serialisation.
    for (const r of [...seen.slice(0, 7), ...seen.slice(8)]) expect(r.raw.toString()).toBe(JSON.stringify(r.body, null, 2));
    for (const r of seen) expect(r.raw.toString()).not.toBe(JSON.stringify(JSON.parse(r.raw.toString())));
    expect(seen[7]!.raw.toString()).toBe(JSON.stringify(seen[7]!.body, null, '\t'));
    expect(seen[8]!.headers['x-service-signature']).toBeUndefined();
    for (const forged of seen.slice(9, 12)) expect(forged.headers['x-service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(check.cases[8]!.case).toBe('forged/no-signature');
  });

  it('fails exactly the four forged cases, named, against a receiver that answers 200 to everything', async () => {
    const receiver = await startReceiver(() => 200);
    const check = await checkReceiver(receiver.url, { secret: SECRET });
    expect(check.ok).toBe(false);
    expect(failed(check)).toEqual(FORGED);
    const errors = Object.fromEntries(check.cases.map((c) => [c.case, c.error]));
    expect(errors['forged/no-signature']).toMatch(/^answered HTTP 200 \("ok"\): a delivery without X-Service-Signature was accepted/);
    expect(errors['forged/wrong-signature']).toMatch(/a wrong signature was accepted: compare the whole HMAC/);
    expect(errors['forged/other-body']).toMatch(/the signature of another body was accepted/);
    expect(errors['forged/other-secret']).toMatch(/a signature made with another secret was accepted/);
  });

  it('fails every signed case, named and saying why, against a receiver that verifies JSON.stringify(JSON.parse(raw))', async () => {
    const receiver = await startReceiver((request) =>
      verified(request, JSON.stringify(JSON.parse(request.raw.toString('utf8')))) ? 200 : 400,
    );
    const check = await checkReceiver(receiver.url, { secret: SECRET });
    expect(failed(check)).toEqual([...SIGNED, 'duplicate']);
    const errors = Object.fromEntries(check.cases.map((c) => [c.case, c.error]));
    expect(errors['signed/call.started']).toMatch(
      /^answered HTTP 400 \("nope"\): .*verifies re-serialized JSON \(JSON\.stringify\(JSON\.parse\(body\)\)\) fails here/,
    );
    expect(errors['signed/spaced-json']).toMatch(/^answered HTTP 400 \("nope"\): .*most likely verifies re-serialized JSON/);
  });

  it('fails signed/spaced-json alone against a receiver that re-serializes with the indentation of the usual bodies', async () => {
    const receiver = await startReceiver((request) => (verified(request, JSON.stringify(request.body, null, 2)) ? 200 : 400));
    const check = await checkReceiver(receiver.url, { secret: SECRET });
    expect(failed(check)).toEqual(['signed/spaced-json']);
    expect(check.cases.find((c) => !c.ok)?.error).toMatch(/^answered HTTP 400 \("nope"\): .*verifies re-serialized JSON/);
  });

  it('fails the duplicate alone against a receiver that refuses an event id it has seen', async () => {
    const ids = new Set<string>();
    const receiver = await startReceiver((request) => {
      if (!verified(request)) return 401;
      if (ids.has(request.body.id)) return 409;
      ids.add(request.body.id);
      return 200;
    });
    const check = await checkReceiver(receiver.url, { secret: SECRET });
    expect(failed(check)).toEqual(['duplicate']);
    expect(check.cases.at(-1)!.error).toMatch(/^answered HTTP 409 .*answer 2xx to a duplicate/);
  });

  it('fails every case quickly, each run, against a dead endpoint (connection refused)', async () => {
    const check = await checkReceiver(await closedPortUrl(), { secret: SECRET, timeout: '5s' });
    expect(failed(check)).toEqual(CASES);
    for (const c of check.cases) {
      expect(c.status).toBeNull();
      expect(c.error).toMatch(/^no answer: connect ECONNREFUSED 127\.0\.0\.1:\d+: /);
      // Refused, not timed out: a refusal takes a millisecond or so, the 5 s timeout thousands of times more.
      expect(c.ms).toBeLessThan(5000);
    }
  });

  it('fails a hanging receiver in about one timeout: the cases after it are not run', async () => {
    const receiver = await startReceiver(() => 'hang');
    const check = await checkReceiver(receiver.url, { secret: SECRET, timeout: '500ms' });
    // The one request the receiver saw is the proof: twelve timeouts would have sent twelve.
    expect(receiver.received).toHaveLength(1);
    const [first, ...rest] = check.cases;
    expect(first).toMatchObject({ case: 'signed/call.started', status: null, ok: false });
    expect(first!.error).toBe('no answer within 500 ms (timed out): the service counts that as a failed attempt and retries the delivery');
    expect(first!.ms).toBeGreaterThanOrEqual(490);
    expect(rest).toHaveLength(CASES.length - 1);
    for (const c of rest) {
      expect(c).toMatchObject({ status: null, ok: false, ms: 0 });
      expect(c.error).toBe('not run: the endpoint stopped answering (signed/call.started timed out)');
    }
  });

  it("times out on real time under the user's vi.useFakeTimers(), and dates the events by the real clock", async () => {
    vi.useFakeTimers({ now: Date.parse('2001-01-01T00:00:00Z') });
    let calls = 0;
    const receiver = await startReceiver(() => (++calls === 1 ? 204 : 'hang'));
    const check = await checkReceiver(receiver.url, { secret: SECRET, timeout: '1s' });
    expect(check.cases.slice(0, 2).map((c) => c.error?.replace(/:.*/, ''))).toEqual([undefined, 'no answer within 1000 ms (timed out)']);
    expect(Date.parse(receiver.received[0]!.body.created_at)).toBeGreaterThan(Date.parse('2020-01-01T00:00:00Z'));
  });

  it('fails the signed cases and the duplicate, quoting the answer, against a receiver that answers 500', async () => {
    const receiver = await startReceiver(() => 500);
    const check = await checkReceiver(receiver.url, { secret: SECRET });
    expect(failed(check)).toEqual([...SIGNED, 'duplicate']);
    expect(check.cases[0]!.error).toBe(
      'answered HTTP 500 ("nope"): a correctly signed call.started delivery was refused: verify with this secret, over the raw body bytes as received; ' +
        'a receiver that verifies re-serialized JSON (JSON.stringify(JSON.parse(body))) fails here, as it would against the service: verify the raw bytes as received, then parse',
    );
    // A forged delivery answered 500 is refused all the same.
    expect(check.cases.filter((c) => c.case.startsWith('forged/')).map((c) => [c.status, c.ok])).toEqual(FORGED.map(() => [500, true]));
  });

  it('decides each case on its status once it arrives: a receiver that sends headers and never a body passes in a fraction of a timeout', async () => {
    // Regression: every case waited for the body until the timeout, 13 timeouts in all (130 s at the default).
    const bodies: Buffer[] = [];
    const server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const raw = Buffer.concat(chunks);
        bodies.push(raw);
        res.writeHead(verifyWebhook(raw, String(req.headers['x-service-signature'] ?? ''), SECRET) ? 200 : 401, {
          'content-type': 'text/plain',
        });
        res.flushHeaders(); // and never a byte of the body, nor its end
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const started = performance.now();
      const check = await checkReceiver(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, {
        secret: SECRET,
        timeout: '5s',
      });
      const seconds = (performance.now() - started) / 1000;
      expect(failed(check)).toEqual([]);
      expect(check.cases.map((c) => c.status)).toEqual(CASES.map((name) => (name.startsWith('forged/') ? 401 : 200)));
      expect(bodies).toHaveLength(CASES.length);
      // Waiting for the body would take a timeout per case, 65 s here: the status decides, so well under three timeouts.
      expect(seconds).toBeLessThan(15);
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it('does not follow a redirect: a 3xx is not 2xx', async () => {
    const paths: string[] = [];
    const server = createServer((req, res) => {
      paths.push(req.url!);
      req.resume();
      if (req.url === '/hooks') res.writeHead(307, { location: '/moved' }).end();
      else res.writeHead(200).end();
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    try {
      const check = await checkReceiver(`http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, { secret: SECRET });
      expect(failed(check)).toEqual([...SIGNED, 'duplicate']);
      expect(check.cases[0]!.error).toMatch(/^answered HTTP 307, a redirect, which is not followed: /);
      expect(paths).toEqual(CASES.map(() => '/hooks'));
    } finally {
      server.closeAllConnections();
      server.close();
    }
  });

  it("sends over the wire while a sandbox in the process listens on the receiver's own origin", async () => {
    const receiver = await startReceiver(correct);
    // A path of its own under the receiver's origin: a closed sandbox's base URL stays refused
    // in this process, and a later file's server may get this port again.
    const base = `http://127.0.0.1:${receiver.port}/check-receiver-test`;
    const sandbox = createSandbox({ baseUrl: base }).listen();
    try {
      // The process's fetch now reaches the sandbox, not the receiver.
      expect((await fetch(`${base}/v1/calls`)).status).toBe(401);
      expect(receiver.received).toHaveLength(0);
      const check = await checkReceiver(`${base}/webhooks`, { secret: SECRET });
      expect(failed(check)).toEqual([]);
      expect(receiver.received.map((r) => r.path)).toEqual(CASES.map(() => '/check-receiver-test/webhooks'));
    } finally {
      sandbox.close();
    }
  });
});

describe('checkReceiver refuses bad input before sending anything', () => {
  it.each([
    ['not a url', /`url` must be an absolute http or https URL/],
    ['', /`url` must be the address of your webhook receiver/],
    ['ftp://127.0.0.1/hooks', /`url` must use http or https .*got the scheme ftp:/],
    ['http://169.254.169.254/latest/meta-data', /`url` points at a link-local or cloud-metadata address \(169\.254\.169\.254\)/],
    ['http://2852039166/', /link-local or cloud-metadata address \(169\.254\.169\.254\)/],
    ['http://[::ffff:169.254.169.254]/', /link-local or cloud-metadata address \(\[::ffff:a9fe:a9fe\]\)/],
    ['https://[fe80::1]/hooks', /link-local or cloud-metadata address \(\[fe80::1\]\)/],
    ['http://metadata.google.internal/', /link-local or cloud-metadata address \(metadata\.google\.internal\)/],
    ['http://127.0.0.1/a b', /must not contain spaces/],
  ])('%j', async (url, message) => {
    const error = await checkReceiver(url, { secret: SECRET }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ param: 'url', message });
  });

  it('a URL with credentials, a missing secret or a bad timeout: nothing reaches the receiver', async () => {
    const receiver = await startReceiver(correct);
    const refusal = (url: string, options: object) => checkReceiver(url, options as { secret: string }).catch((e: SandboxError) => e);
    expect(await refusal(receiver.url.replace('//', '//user:pw@'), { secret: SECRET })).toMatchObject({
      param: 'url',
      message: expect.stringMatching(/must not carry credentials/),
    });
    for (const secret of [undefined, '']) {
      expect(await refusal(receiver.url, { secret })).toMatchObject({ param: 'secret', code: 'missing_parameter' });
    }
    expect(await refusal(receiver.url, { secret: 42 })).toMatchObject({ param: 'secret', message: expect.stringMatching(/got 42/) });
    for (const timeout of ['0ms', '11m', 'soon', -1, '10']) {
      expect(await refusal(receiver.url, { secret: SECRET, timeout })).toMatchObject({
        param: 'timeout',
        message: expect.stringMatching(/from 1 ms to 10 minutes/),
      });
    }
    expect(receiver.received).toHaveLength(0);
  });
});
