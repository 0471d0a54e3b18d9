import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isLinkLocalOrMetadata } from '../../src/core/hosts.js';
import { createSandbox, SandboxError, type SandboxSnapshot, startServer, type SandboxServer } from '../../src/index.js';
import { serverClient } from './client.js';
import { refusal } from '../support/refusal.js';

/**
 * Regression: snapshot inputs answered 500 or were accepted without a word. A call named
 * `constructor` or `__proto__` answered 500 ("known?.includes is not a function") and made
 * `--import` exit 1; a CONNECT request, a path `//evil.example/x` or `/__sandbox/...`, inputs
 * out of order, a `now` before its inputs and an advance of 1e16 ms were taken as they came.
 * Each is now refused before anything runs, naming the input and its field with the fix, on
 * every road: createSandbox({ snapshot }), POST /__sandbox/sessions {snapshot} (400), and the
 * CLI's --import and show (exit 2, test/server/cli-snapshots.test.ts).
 */

const KEY = 'SVC_TEST_alice';
const START = Date.parse('2026-01-01T00:00:00Z');

/** A receiver that counts what reaches it: a refused snapshot must send nothing. */
let receiver: Server;
let received = 0;
let hooks = '';
let server: SandboxServer;
let good: SandboxSnapshot;

beforeAll(async () => {
  receiver = createServer((req, res) => {
    received++;
    req.resume();
    res.writeHead(204).end();
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  hooks = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hooks`;
  server = await startServer({ port: 0 });
  good = await story();
});
afterAll(async () => {
  await server.close();
  await new Promise((resolve) => receiver.close(resolve));
});

/**
 * The snapshot every case spoils, inputs in this order: 0 subscribe (POST /v1/webhooks),
 * 1 place a call (POST /v1/calls), 2 advance 10 s, 3 network.setBehavior. Its attempts are
 * dropped, so a restore that ran would deliver the call's events to the receiver for real.
 */
async function story(): Promise<SandboxSnapshot> {
  const sandbox = createSandbox({ seed: 5 });
  const send = (path: string, body: unknown) =>
    sandbox.fetch(path, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
  expect((await send('/v1/webhooks', { url: hooks, events: ['call.started'] })).status).toBe(201);
  expect((await send('/v1/calls', { to: '+14155550123', from: '+14155550100' })).status).toBe(201);
  await sandbox.advance('10s');
  sandbox.network.setBehavior('+14155550111', { outcome: 'busy' });
  const snapshot = { ...sandbox.snapshot(), attempts: [] };
  sandbox.close();
  expect(snapshot.inputs.map((input) => input.kind)).toEqual(['request', 'request', 'advance', 'call']);
  received = 0;
  return snapshot;
}

type Spoil = (s: SandboxSnapshot & { inputs: any[] }) => void;
interface Case {
  what: string;
  spoil: Spoil;
  param: string;
  /** The message: what is wrong, and the fix. */
  message: RegExp;
  /** Larger than the control API reads (1 MiB): checked in-process only. */
  libraryOnly?: boolean;
}

const subscribeTo =
  (url: string): Spoil =>
  (s) => {
    s.inputs[0].body = JSON.stringify({ url, events: ['call.started'] });
    s.inputs[0].headers = s.inputs[0].headers.filter(([name]: [string]) => name !== 'content-length');
  };

/** An `elided` input of three requests, with these rows, put between the call and the advance (inputs[2]). */
const elidedWith =
  (...rows: unknown[]): Spoil =>
  (s) =>
    s.inputs.splice(2, 0, { kind: 'elided', at: START, requests: 3, answered: rows });

const CASES: Case[] = [
  {
    what: 'a call named constructor (answered 500 "known?.includes is not a function")',
    spoil: (s) => s.inputs.push({ kind: 'call', at: START + 10_000, name: 'constructor', args: [] }),
    param: 'snapshot.inputs[4].name',
    message: /`snapshot\.inputs\[4\]\.name` "constructor" is not a scripting call a snapshot records: .*calls\.answer.*webhooks\.replayAll/,
  },
  {
    what: 'a call named __proto__',
    spoil: (s) => s.inputs.push({ kind: 'call', at: START + 10_000, name: '__proto__', args: [] }),
    param: 'snapshot.inputs[4].name',
    message: /"__proto__" is not a scripting call a snapshot records/,
  },
  {
    what: 'a CONNECT request',
    spoil: (s) => (s.inputs[1].method = 'CONNECT'),
    param: 'snapshot.inputs[1].method',
    message: /`snapshot\.inputs\[1\]\.method` must be a method a request to the API can have .*, got "CONNECT"/,
  },
  {
    what: 'a method that is no HTTP token',
    spoil: (s) => (s.inputs[1].method = 'GET /x'),
    param: 'snapshot.inputs[1].method',
    message: /got "GET \/x"/,
  },
  {
    what: 'a path that reads as another host (//evil.example/x)',
    spoil: (s) => (s.inputs[1].path = '//evil.example/x'),
    param: 'snapshot.inputs[1].path',
    message: /`snapshot\.inputs\[1\]\.path` must be a path under \/v1 .*, got "\/\/evil\.example\/x"/,
  },
  {
    what: 'a path of the control API (/__sandbox/...)',
    spoil: (s) => (s.inputs[1].path = '/__sandbox/sessions'),
    param: 'snapshot.inputs[1].path',
    message: /got "\/__sandbox\/sessions"/,
  },
  {
    what: 'a path that moves the host (.evil.example/v1/calls)',
    spoil: (s) => (s.inputs[1].path = '.evil.example/v1/calls'),
    param: 'snapshot.inputs[1].path',
    message: /must be a path under \/v1/,
  },
  {
    what: 'a path with dot segments',
    spoil: (s) => (s.inputs[1].path = '/v1/../__sandbox/health'),
    param: 'snapshot.inputs[1].path',
    message: /must be a path under \/v1 as a request's URL writes it/,
  },
  {
    what: 'a URL with credentials',
    spoil: (s) => {
      delete s.inputs[1].path;
      s.inputs[1].url = 'https://user:pw@evil.example/v1/calls';
    },
    param: 'snapshot.inputs[1].url',
    message: /`snapshot\.inputs\[1\]\.url` must be an absolute http\(s\) URL .*without credentials/,
  },
  {
    what: 'a request with both a path and a URL',
    spoil: (s) => (s.inputs[1].url = 'https://api.svc.test/v1/calls'),
    param: 'snapshot.inputs[1].url',
    message: /cannot be given with `path`/,
  },
  {
    what: 'a header the API never reads',
    spoil: (s) => s.inputs[1].headers.push(['x-forwarded-host', 'evil.example']),
    param: 'snapshot.inputs[1].headers[2][0]',
    message: /must be one of the headers a snapshot keeps \(accept, .*origin\), each once and in that order, got "x-forwarded-host"/,
  },
  {
    what: 'a header value with a line break',
    spoil: (s) => (s.inputs[1].headers[0][1] = `Bearer ${KEY}\r\nx-evil: 1`),
    param: 'snapshot.inputs[1].headers[0][1]',
    message: /must be a header value as a request carries one \(no line breaks or NUL, no blanks around it\)/,
  },
  {
    what: 'a body longer than the API reads',
    spoil: (s) => (s.inputs[1].body = 'x'.repeat(1024 * 1024 + 1)),
    param: 'snapshot.inputs[1].body',
    message: /is 1048577 bytes, more than the 1048576 the API reads of a body.*`bodyOver: true`/,
    libraryOnly: true,
  },
  {
    what: 'a body given twice',
    spoil: (s) => (s.inputs[1].bodyBase64 = 'e30='),
    param: 'snapshot.inputs[1].bodyBase64',
    message: /cannot be given with `body`/,
  },
  {
    what: 'inputs out of order',
    spoil: (s) => (s.inputs[1].at = START + 5000),
    param: 'snapshot.inputs[2].at',
    message:
      /`snapshot\.inputs\[2\]\.at` is 2026-01-01T00:00:00\.000Z, before the input before it \(2026-01-01T00:00:05\.000Z\): inputs are in the order they came/,
  },
  {
    what: 'an input before the session started',
    spoil: (s) => (s.inputs[0].at = START - 1),
    param: 'snapshot.inputs[0].at',
    message: /is 2025-12-31T23:59:59\.999Z, before the session's start \(2026-01-01T00:00:00\.000Z\)/,
  },
  {
    what: 'now before its inputs',
    spoil: (s) => (s.now = '2026-01-01T00:00:05.000Z'),
    param: 'snapshot.inputs[3].at',
    message: /is 2026-01-01T00:00:10\.000Z, after the instant the snapshot was taken \(2026-01-01T00:00:05\.000Z\)/,
  },
  {
    what: 'now before the session started',
    spoil: (s) => {
      s.inputs = [];
      s.now = '2025-01-01T00:00:00.000Z';
    },
    param: 'snapshot.now',
    message: /`snapshot\.now` is 2025-01-01T00:00:00\.000Z, before the session's start/,
  },
  {
    what: 'an advance of 1e16 ms',
    spoil: (s) => (s.inputs[2].ms = 1e16),
    param: 'snapshot.inputs[2].ms',
    message: /`snapshot\.inputs\[2\]\.ms` is 10000000000000000: an advance begun at 2026-01-01T00:00:00\.000Z goes at most \d+ ms/,
  },
  {
    what: 'an advanceUntil that stopped before it began',
    spoil: (s) => (s.inputs[2].stop = START - 1000),
    param: 'snapshot.inputs[2].stop',
    message: /before the advance began/,
  },
  {
    what: 'a subscription to the cloud metadata address',
    spoil: subscribeTo('https://169.254.169.254/latest/meta-data'),
    param: 'snapshot.inputs[0].body',
    message:
      /`snapshot\.inputs\[0\]\.body` subscribes a webhook to https:\/\/169\.254\.169\.254\/latest\/meta-data, a link-local or cloud-metadata address/,
  },
  {
    what: 'elided rows that count more requests than the input',
    spoil: elidedWith(['GET', '/v1/calls', 200, null, 2], ['GET', '/v1/calls/{id}', 404, 'not_found', 2]),
    param: 'snapshot.inputs[2].answered[1][4]',
    message: /`snapshot\.inputs\[2\]\.answered\[1\]\[4\]` brings the rows to 4 requests, more than the input's 3 \(`requests`\)/,
  },
  {
    what: 'an elided row that is not five fields',
    spoil: elidedWith(['GET', '/v1/calls', 200]),
    param: 'snapshot.inputs[2].answered[0]',
    message: /`snapshot\.inputs\[2\]\.answered\[0\]` must be a \[.*\] array, got/,
  },
  {
    what: 'an elided row whose method is no HTTP method',
    spoil: elidedWith(['GET /x', '/v1/calls', 200, null, 1]),
    param: 'snapshot.inputs[2].answered[0][0]',
    message: /`snapshot\.inputs\[2\]\.answered\[0\]\[0\]` must be an HTTP method/,
  },
  {
    what: 'an elided row whose path is no path',
    spoil: elidedWith(['GET', 'calls', 200, null, 1]),
    param: 'snapshot.inputs[2].answered[0][1]',
    message: /`snapshot\.inputs\[2\]\.answered\[0\]\[1\]` must be a path as the request journal names one/,
  },
  {
    what: 'an elided row answered 500 (a 500 is never elided)',
    spoil: elidedWith(['GET', '/v1/calls', 500, 'internal_error', 1]),
    param: 'snapshot.inputs[2].answered[0][2]',
    message: /`snapshot\.inputs\[2\]\.answered\[0\]\[2\]` must be a status an elided request was answered with .* got 500/,
  },
  {
    what: 'an elided row whose error code is no code',
    spoil: elidedWith(['GET', '/v1/calls/{id}', 404, 'Not Found', 1]),
    param: 'snapshot.inputs[2].answered[0][3]',
    message: /`snapshot\.inputs\[2\]\.answered\[0\]\[3\]` must be an error code \("not_found"\) or null for a success/,
  },
  {
    what: 'an elided row that counts no request',
    spoil: elidedWith(['GET', '/v1/calls', 200, null, 0]),
    param: 'snapshot.inputs[2].answered[0][4]',
    message: /`snapshot\.inputs\[2\]\.answered\[0\]\[4\]` must be an integer from 1/,
  },
  {
    what: 'elided rate windows that count more requests than the input',
    spoil: (s) =>
      s.inputs.splice(2, 0, {
        kind: 'elided',
        at: START,
        requests: 3,
        windows: [
          ['SVC_TEST_a', 2],
          ['(no key)', 2],
        ],
      }),
    param: 'snapshot.inputs[2].windows[1][1]',
    message: /`snapshot\.inputs\[2\]\.windows\[1\]\[1\]` brings the windows to 4 requests, more than the input's 3 \(`requests`\)/,
  },
  {
    what: 'an elided rate window that names no window',
    spoil: (s) => s.inputs.splice(2, 0, { kind: 'elided', at: START, requests: 3, windows: [['someone', 1]] }),
    param: 'snapshot.inputs[2].windows[0][0]',
    message: /`snapshot\.inputs\[2\]\.windows\[0\]\[0\]` must be a key \(SVC_TEST_…, SVC_LIVE_…\), "\(no key\)" or "\(not a key\)"/,
  },
  {
    what: 'an attempt named in no known form',
    spoil: (s) => s.attempts.push(['../../etc', { status: 204, ok: true, error: null, durationMs: 1 }]),
    param: 'snapshot.attempts[0][0]',
    message: /must name an attempt as `dlv_…\/run\/attempt`/,
  },
  {
    what: 'a key that is no test key',
    spoil: (s) => (s.apiKey = 'SVC_LIVE_x'),
    param: 'snapshot.apiKey',
    message: /must be a test key \(SVC_TEST_…\)/,
  },
];

function spoiled(spoil: Spoil): SandboxSnapshot {
  // Parsed again, not cloned: the recorder shares one header list between requests that send the same.
  const copy = JSON.parse(JSON.stringify(good)) as SandboxSnapshot & { inputs: any[] };
  spoil(copy);
  return copy;
}

describe('snapshot inputs that no sandbox recorded are refused, naming the input and the fix', () => {
  it('the snapshot they spoil restores, and sends its deliveries', async () => {
    const copy = createSandbox({ snapshot: structuredClone(good) });
    await copy.advance(0);
    expect(copy.calls.list()).toHaveLength(1);
    expect(received).toBe(1);
    copy.close();
    received = 0;
  });

  it.each(CASES)('createSandbox({ snapshot }): $what', ({ spoil, param, message }) => {
    const error = refusal(() => createSandbox({ snapshot: spoiled(spoil) }));
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'invalid_options', param });
    expect(error.message).toMatch(message);
    expect(error.message.startsWith('createSandbox: ')).toBe(true);
    expect(received).toBe(0);
  });

  it.each(CASES.filter((c) => !c.libraryOnly))('POST /__sandbox/sessions {snapshot}: $what', async ({ spoil, param, message }) => {
    const { control } = serverClient(() => server.url);
    const before = (await control.get('/sessions')).body.data.length;
    const { status, body } = await control.post('/sessions', { snapshot: spoiled(spoil) });
    expect(status).toBe(400);
    expect(body.error).toMatchObject({ code: 'invalid_parameter', param });
    expect(body.error.message).toMatch(message);
    expect((await control.get('/sessions')).body.data.length).toBe(before);
    expect(received).toBe(0);
  });

  it('every spelling of a link-local or metadata host that subscriptions refuse is refused in a snapshot too', () => {
    for (const url of [
      'https://169.254.0.1:8443/x',
      'https://[fe80::1]/',
      'https://[fd00:ec2::254]/',
      'https://metadata.google.internal/computeMetadata/v1/',
      'https://[::ffff:169.254.169.254]/',
      'https://[::169.254.169.254]/',
      'https://[64:ff9b::169.254.169.254]/',
      'https://[2002:a9fe:a9fe::]/',
      'https://2852039166/',
      'https://0xa9.0xfe.0xa9.0xfe/',
      'https://100.100.100.200/',
    ]) {
      expect(isLinkLocalOrMetadata(new URL(url).hostname), url).toBe(true);
      expect(
        refusal(() => createSandbox({ snapshot: spoiled(subscribeTo(url)) })),
        url,
      ).toMatchObject({
        param: 'snapshot.inputs[0].body',
      });
    }
    // A receiver elsewhere restores as before (and is refused by nothing).
    const elsewhere = createSandbox({ snapshot: spoiled(subscribeTo('https://hooks.example.test/in')) });
    expect(elsewhere.calls.list()).toHaveLength(1);
    elsewhere.close();
  });
});

describe('what a sandbox records always restores', () => {
  it('requests to paths outside /v1, odd methods and a refused advance past the last instant a Date holds', async () => {
    const original = createSandbox({ seed: 8 });
    const base = original.baseUrl;
    const headers = { authorization: `Bearer ${KEY}` };
    const statuses = [];
    for (const [method, url] of [
      ['GET', `${base}//evil.example/x`],
      ['GET', `${base}/__sandbox/sessions`],
      ['GET', `${base}/`],
      ['PROPFIND', `${base}/v1/calls`],
      ['GET', 'https://elsewhere.example/v1/calls'],
      ['GET', `${base}/v1/calls?limit=2#top`],
    ] as const) {
      statuses.push((await original.handle(new Request(url, { method, headers }))).status);
    }
    expect(statuses).toEqual([404, 404, 404, 405, 404, 200]);
    await expect(original.advance(1e16)).rejects.toMatchObject({ param: 'duration' });
    await expect(original.advanceUntil('call.completed', { max: 1e16 })).rejects.toMatchObject({ param: 'max' });
    await original.advance('1s');
    const snapshot = original.snapshot();
    expect(snapshot.inputs.filter((input) => input.kind === 'advance')).toHaveLength(1);
    const copy = createSandbox({ snapshot: JSON.parse(JSON.stringify(snapshot)) });
    expect(copy.requests.list()).toEqual(original.requests.list());
    expect(copy.now()).toEqual(original.now());
    expect(copy.snapshot()).toEqual(snapshot);
    original.close();
    copy.close();
  });
});
