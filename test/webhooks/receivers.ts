import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Sandbox } from '../../src/index.js';
import { client, KEY } from '../helpers.js';

/** One request as a real receiver saw it. */
export interface Received {
  path: string;
  headers: IncomingHttpHeaders;
  /** The exact bytes that arrived. */
  raw: Buffer;
  body: any;
  /** Virtual time at arrival, when the test gave the receiver a sandbox. */
  virtualAt?: string;
}

/** What the receiver answers the n-th request (1-based): a status, or 'hang' to never answer. */
export type Responder = (request: Received, n: number) => number | 'hang';

export interface Receiver {
  url: string;
  port: number;
  received: Received[];
  close(): Promise<void>;
}

const open = new Set<Server>();

/** A real `node:http` server on 127.0.0.1, port 0. Close them all with {@link closeReceivers}. */
export async function startReceiver(respond: Responder = () => 200, sandbox?: Sandbox): Promise<Receiver> {
  const received: Received[] = [];
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const raw = Buffer.concat(chunks);
      const request: Received = {
        path: req.url ?? '/',
        headers: req.headers,
        raw,
        body: raw.length ? JSON.parse(raw.toString('utf8')) : null,
        ...(sandbox ? { virtualAt: sandbox.now().toISOString() } : {}),
      };
      received.push(request);
      const answer = respond(request, received.length);
      if (answer === 'hang') return;
      res.writeHead(answer, { 'content-type': 'text/plain' }).end(answer < 300 ? 'ok' : 'nope');
    });
  });
  open.add(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return { url: `http://127.0.0.1:${port}/hooks`, port, received, close: () => stop(server) };
}

function stop(server: Server): Promise<void> {
  open.delete(server);
  server.closeAllConnections();
  return new Promise((resolve) => server.close(() => resolve()));
}

/** Closes every receiver still open (afterEach). */
export async function closeReceivers(): Promise<void> {
  await Promise.all([...open].map(stop));
}

/** A URL on 127.0.0.1 where nothing listens: connecting is refused. */
export async function closedPortUrl(): Promise<string> {
  const receiver = await startReceiver();
  await receiver.close();
  return receiver.url;
}

/** POST /v1/webhooks as a user would; returns the created subscription (with its secret). */
export async function subscribe(sandbox: Sandbox, url: string, events: string[], key = KEY) {
  const res = await client(sandbox, key).post('/v1/webhooks', { url, events });
  if (res.status !== 201) throw new Error(`subscribe failed: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body as { id: string; url: string; events: string[]; secret: string; created_at: string };
}
