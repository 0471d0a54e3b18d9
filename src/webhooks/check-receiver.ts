import { randomInt } from 'node:crypto';
import { type ClientRequest, request as httpRequest } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { performance } from 'node:perf_hooks';
import { type Duration, parseDuration } from '../core/duration.js';
import { SandboxError, type SandboxErrorCode } from '../core/errors.js';
import { isLinkLocalOrMetadata } from '../core/hosts.js';
import { show } from '../core/schema.js';
import { EVENT_TYPES, type EventType, type SandboxEvent } from '../state/events.js';
import { deliveryHeaders, webhookBody } from './request.js';
import { sign } from './signature.js';

/**
 * `checkReceiver()` and `svc-sandbox check-receiver` (docs/webhooks.md, "Check your receiver"):
 * the user's own webhook endpoint, called as the service would call it, signed and forged. It
 * lives beside the deliveries so its requests are theirs: the same body ({@link webhookBody}),
 * signature ({@link sign}) and headers ({@link deliveryHeaders}). Only the events come from
 * outside this layer: a fresh sandbox's triggers make them (src/sandbox.ts binds that).
 */

/** One delivery sent to the receiver, and what came of it. */
export interface ReceiverCase {
  /**
   * Which delivery: `signed/<event type>` (one per type), `signed/spaced-json`, `forged/no-signature`,
   * `forged/wrong-signature`, `forged/other-body`, `forged/other-secret`, `duplicate`.
   */
  case: string;
  /** `2xx` for a genuine delivery (the duplicate too), `not 2xx` for a forged one. */
  expected: '2xx' | 'not 2xx';
  /** The receiver's HTTP status; null when it did not answer (or the case was not run). */
  status: number | null;
  /** Whether the answer was the expected one, within the timeout. */
  ok: boolean;
  /** Real milliseconds until the response headers (or until it failed); 0 when not run. */
  ms: number;
  /**
   * Why the case fell short and what that means for the receiver (`answered HTTP 200: …`, `no answer: …`,
   * or, for the cases after a delivery went unanswered for the timeout, `not run: …`); null when ok.
   */
  error: string | null;
}

/** What {@link checkReceiver} found: ok when every case was. */
export interface ReceiverCheck {
  ok: boolean;
  cases: ReceiverCase[];
}

export interface CheckReceiverOptions {
  /** The webhook secret the receiver verifies with (a subscription's `whsec_…`, or your own). */
  secret: string;
  /** Real time each delivery may take to be answered: default `'10s'`, as the service waits; at most `'10m'`. */
  timeout?: Duration;
}

/**
 * Makes the check's events, one per type asked, in order: genuine envelopes, each the end of a
 * real story in a sandbox of their own, seeded with `seed` and started at `startTime`.
 */
export type MakeEvents = (types: readonly EventType[], sandbox: { seed: number; startTime: number }) => Promise<SandboxEvent[]>;

const DEFAULT_TIMEOUT_MS = 10_000;
const MAX_TIMEOUT_MS = 600_000;
const MAX_URL_LENGTH = 2048;
/** How much of a response body is read, to quote in a failure; the rest is never read. */
const MAX_BODY_BYTES = 1024;
/**
 * Once the status has come, the most real time given to the body, only to quote it in a failure:
 * the status decides. A receiver that sends its headers and never a body costs this per case,
 * not a timeout per case.
 */
const BODY_GRACE_MS = 250;
/**
 * The events are dated as recent ones: their stories (a call rings, is answered, completes, is
 * recorded and transcribed) start this long before the run and take some two minutes of virtual
 * time, so every `created_at` lies in the minutes just past, never in the future.
 */
const DATED_BEFORE_MS = 5 * 60_000;
/** What an unanswered delivery means, said after why it went unanswered. */
const UNANSWERED: Record<ReceiverCase['expected'], string> = {
  '2xx': 'the service counts that as a failed attempt and retries the delivery',
  'not 2xx': 'no answer says nothing of the signature check: answer a forged delivery with a 4xx (400 or 401)',
};
const URL_EXAMPLE = 'http://127.0.0.1:3000/webhooks';
const USER_AGENT = 'svc-sandbox-check-receiver';
/** How the error of a case not run begins (after a delivery went unanswered for the timeout). */
export const NOT_RUN = 'not run';
/** Said of every signed case that was refused: the bug a sandbox with compact bodies would have let pass. */
const RESERIALIZED =
  'a receiver that verifies re-serialized JSON (JSON.stringify(JSON.parse(body))) fails here, as it would against the service: ' +
  'verify the raw bytes as received, then parse';

/**
 * Captured when this module loads: a `node:http` client patched later (by a listening sandbox's
 * interception, or a user's msw or nock) never sees these requests. A receiver is checked over
 * the wire even when a sandbox in the same process listens on the receiver's own origin.
 */
const SEND = { 'http:': httpRequest, 'https:': httpsRequest } as const;
/** The wall clock as it was at load: a test's `vi.useFakeTimers()` does not date the events. */
const wallNow = Date.now;

/** A delivery to send: its body, headers, and what a wrong answer to it means. */
interface Planned {
  case: string;
  expected: ReceiverCase['expected'];
  body: string;
  headers: Record<string, string>;
  /** Said after the answer when the case falls short. */
  meaning: string;
}

/** A refused argument of {@link checkReceiver}: which one, and what is wrong with it (said after its name). */
export interface ReceiverInputRefusal {
  param: 'url' | 'secret' | 'timeout';
  code: SandboxErrorCode;
  /** What is wrong and the fix, said after the argument's name: `must use http or https, …`. */
  text: string;
}

/** The arguments of {@link checkReceiver}, checked. */
export interface ReceiverInput {
  url: URL;
  secret: string;
  timeoutMs: number;
}

/**
 * Checks the arguments of {@link checkReceiver} without sending anything: the input, or what is
 * wrong with it, as parts a caller words in its own terms (the CLI names `--secret`, the library
 * `secret`).
 */
export function checkReceiverInput(url: unknown, options: unknown): ReceiverInput | ReceiverInputRefusal {
  const target = receiverUrl(url);
  if (!(target instanceof URL)) return target;
  const { secret, timeout } = (options ?? {}) as Partial<CheckReceiverOptions>;
  if (typeof secret !== 'string' || secret === '') {
    return {
      param: 'secret',
      code: secret === undefined || secret === '' ? 'missing_parameter' : 'invalid_parameter',
      text: `must be the webhook secret your receiver verifies with, e.g. 'whsec_…' (got ${show(secret)}).`,
    };
  }
  const timeoutMs = timeout === undefined ? DEFAULT_TIMEOUT_MS : parseDuration(timeout);
  if (timeoutMs === null || timeoutMs < 1 || timeoutMs > MAX_TIMEOUT_MS) {
    return {
      param: 'timeout',
      code: 'invalid_parameter',
      text: `must be a duration such as '10s' or '300ms', from 1 ms to 10 minutes (got ${show(timeout)}).`,
    };
  }
  return { url: target, secret, timeoutMs };
}

/**
 * The check behind the public `checkReceiver` (src/sandbox.ts), with the maker of its events
 * given: the receiver tested as the service would call it, by real HTTP. One correctly signed
 * delivery of each of the seven event types, one whose JSON is spaced otherwise, four forged
 * ones (no signature, a wrong one, the signature of another body, one made with another
 * secret) and a duplicate (the first event again, same id, attempt 2). Each case is decided by
 * its status once it arrives. Resolves, never rejects, for anything the receiver does; throws a
 * {@link SandboxError} (`param` `url`, `secret` or `timeout`) for bad input, before anything is
 * made or sent.
 *
 * @example
 * const check = await runReceiverCheck(makeEvents, 'http://127.0.0.1:3000/webhooks', { secret: 'whsec_…' });
 */
export async function runReceiverCheck(makeEvents: MakeEvents, url: string, options: CheckReceiverOptions): Promise<ReceiverCheck> {
  const input = checkReceiverInput(url, options);
  if (!('url' in input)) {
    throw new SandboxError(`\`${input.param}\` ${input.text}`, { code: input.code, param: input.param });
  }
  const planned = await plan(makeEvents, input.secret);
  const cases: ReceiverCase[] = [];
  let hung: string | null = null;
  for (const { case: name, expected, meaning, ...delivery } of planned) {
    if (hung !== null) {
      cases.push({
        case: name,
        expected,
        status: null,
        ok: false,
        ms: 0,
        error: `${NOT_RUN}: the endpoint stopped answering (${hung} timed out)`,
      });
      continue;
    }
    const { status, ms, timedOut, said } = await send(input.url, delivery, input.timeoutMs);
    if (timedOut) hung = name;
    // A forged delivery is refused by an answer that says so: no answer at all proves nothing.
    const ok = status !== null && (status >= 200 && status < 300) === (expected === '2xx');
    const error = ok ? null : `${said}: ${status === null ? UNANSWERED[expected] : meaning}`;
    cases.push({ case: name, expected, status, ok, ms, error });
  }
  return { ok: cases.every((c) => c.ok), cases };
}

/** The receiver's URL, checked: http(s), no credentials, never a link-local or cloud-metadata host. */
function receiverUrl(value: unknown): URL | ReceiverInputRefusal {
  const refuse = (text: string): ReceiverInputRefusal => ({
    param: 'url',
    code: value === undefined ? 'missing_parameter' : 'invalid_parameter',
    text,
  });
  if (typeof value !== 'string' || value === '')
    return refuse(`must be the address of your webhook receiver, e.g. ${URL_EXAMPLE} (got ${show(value)}).`);
  if (value.length > MAX_URL_LENGTH) return refuse(`must be at most ${MAX_URL_LENGTH} characters, got ${value.length}.`);
  if (/[\s\x00-\x1f\x7f]/.test(value)) return refuse('must not contain spaces, other whitespace or control characters.');
  if (!URL.canParse(value)) return refuse(`must be an absolute http or https URL such as ${URL_EXAMPLE} (got ${show(value)}).`);
  const url = new URL(value);
  if (url.protocol !== 'http:' && url.protocol !== 'https:')
    return refuse(`must use http or https, e.g. ${URL_EXAMPLE} (got the scheme ${url.protocol}).`);
  if (url.username || url.password) {
    return refuse(
      'must not carry credentials (user:password@): webhook requests are authenticated by the X-Service-Signature header; give the URL without them.',
    );
  }
  if (isLinkLocalOrMetadata(url.hostname)) {
    return refuse(
      `points at a link-local or cloud-metadata address (${url.hostname}), which svc-sandbox never calls; give the address of your own receiver.`,
    );
  }
  return url;
}

/** The deliveries, in the order they are sent. */
async function plan(makeEvents: MakeEvents, secret: string): Promise<Planned[]> {
  // Each after the seven is an event of its own: a receiver that answers a seen id 2xx before verifying must not pass by it.
  const types: EventType[] = [...EVENT_TYPES, ...Array<EventType>(5).fill('message.received')];
  // A new seed per run: new event ids every time, as the service's events would have.
  const events = await makeEvents(types, { seed: randomInt(2 ** 31), startTime: wallNow() - DATED_BEFORE_MS });
  const signed = events.slice(0, EVENT_TYPES.length);
  const [first, spaced, unsigned, wrong, otherBody, otherSecret] = [signed[0], ...events.slice(EVENT_TYPES.length)];
  if (!first || !spaced || !unsigned || !wrong || !otherBody || !otherSecret) throw new Error('checkReceiver: too few events were made');
  const request = (event: SandboxEvent, body: string, signature: string | null, attempt: number) => ({
    body,
    headers: {
      ...deliveryHeaders({ eventId: event.id, eventType: event.type, signature, attempt, userAgent: USER_AGENT }),
      'content-length': String(Buffer.byteLength(body)),
    },
  });
  const genuine = (event: SandboxEvent, name: string, meaning: string, body = webhookBody(event), attempt = 1): Planned => ({
    case: name,
    expected: '2xx',
    meaning,
    ...request(event, body, sign(body, secret), attempt),
  });
  const forged = (event: SandboxEvent, name: string, meaning: string, signature: (body: string) => string | null): Planned => {
    const body = webhookBody(event);
    return { case: name, expected: 'not 2xx', meaning, ...request(event, body, signature(body), 1) };
  };
  return [
    ...signed.map((event) =>
      genuine(
        event,
        `signed/${event.type}`,
        `a correctly signed ${event.type} delivery was refused: verify with this secret, over the raw body bytes as received; ${RESERIALIZED}`,
      ),
    ),
    genuine(
      spaced,
      'signed/spaced-json',
      'a correctly signed body spaced otherwise (tabs) was refused: the receiver most likely verifies re-serialized JSON ' +
        '(JSON.stringify of the parsed body, however indented); verify the raw bytes as received, then parse',
      JSON.stringify(spaced, null, '\t'),
    ),
    forged(
      unsigned,
      'forged/no-signature',
      'a delivery without X-Service-Signature was accepted: refuse a request that carries no signature',
      () => null,
    ),
    forged(
      wrong,
      'forged/wrong-signature',
      'a wrong signature was accepted: compare the whole HMAC, not only that the header is there or well-formed',
      (body) => wrongDigit(sign(body, secret)),
    ),
    forged(otherBody, 'forged/other-body', "the signature of another body was accepted: verify it over this request's own raw body", () =>
      sign(webhookBody(first), secret),
    ),
    forged(
      otherSecret,
      'forged/other-secret',
      'a signature made with another secret was accepted: verify with your webhook secret only',
      (body) => sign(body, `${secret}-other`),
    ),
    genuine(
      first,
      'duplicate',
      `a repeat of ${first.id}, already accepted (same X-Service-Event-Id), was refused: answer 2xx to a duplicate, or the service retries it for 24 hours`,
      undefined,
      2,
    ),
  ];
}

/** The signature with its last hex digit changed: right length and form, wrong value. */
function wrongDigit(signature: string): string {
  return signature.slice(0, -1) + (signature.endsWith('0') ? '1' : '0');
}

interface Answer {
  status: number | null;
  ms: number;
  timedOut: boolean;
  /** What happened, for the case's error: `answered HTTP 401 ("bad signature")`, `no answer: …`. */
  said: string;
}

/**
 * POSTs one delivery and never rejects. The timeout is real time from `AbortSignal.timeout()`,
 * whose timer a test's fake timers cannot freeze, and covers connecting and the response
 * headers. The status decides; then at most {@link MAX_BODY_BYTES} of the body are read, for no
 * longer than {@link BODY_GRACE_MS}, only to quote it.
 */
function send(url: URL, delivery: Pick<Planned, 'body' | 'headers'>, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve) => {
    const started = performance.now();
    const elapsed = () => Math.round(performance.now() - started);
    const timeout = AbortSignal.timeout(timeoutMs);
    let grace: AbortSignal | undefined;
    let request: ClientRequest | undefined;
    let response: { status: number; ms: number; chunks: Buffer[] } | null = null;
    let done = false;
    const finish = (answer: Answer) => {
      if (done) return;
      done = true;
      timeout.removeEventListener('abort', onTimeout);
      grace?.removeEventListener('abort', answered);
      request?.destroy();
      resolve(answer);
    };
    // The status decides, as for the service; the body only gives a failure its words.
    function answered() {
      if (!response) return;
      const { status, ms, chunks } = response;
      const text = Buffer.concat(chunks).subarray(0, MAX_BODY_BYTES).toString('utf8').replace(/\s+/g, ' ').trim();
      const quoted = text === '' ? '' : ` (${JSON.stringify(text.length > 100 ? `${text.slice(0, 100)}…` : text)})`;
      const redirect = status >= 300 && status < 400 ? ', a redirect, which is not followed' : '';
      finish({ status, ms, timedOut: false, said: `answered HTTP ${status}${quoted}${redirect}` });
    }
    const failed = (error: NodeJS.ErrnoException) => {
      if (response) return answered();
      const why = error.code && !error.message.includes(error.code) ? `${error.message} (${error.code})` : error.message;
      finish({ status: null, ms: elapsed(), timedOut: false, said: `no answer: ${why}` });
    };
    function onTimeout() {
      if (response) answered();
      else finish({ status: null, ms: elapsed(), timedOut: true, said: `no answer within ${timeoutMs} ms (timed out)` });
    }
    timeout.addEventListener('abort', onTimeout, { once: true });
    try {
      request = SEND[url.protocol as keyof typeof SEND](url, { method: 'POST', headers: delivery.headers, agent: false }, (res) => {
        const got = { status: res.statusCode ?? 0, ms: elapsed(), chunks: [] as Buffer[] };
        response = got;
        grace = AbortSignal.timeout(BODY_GRACE_MS);
        grace.addEventListener('abort', answered, { once: true });
        let size = 0;
        res.on('data', (chunk: Buffer) => {
          got.chunks.push(chunk);
          size += chunk.length;
          if (size >= MAX_BODY_BYTES) answered();
        });
        res.on('end', answered);
        res.on('error', answered);
      });
    } catch (error) {
      return failed(error as Error);
    }
    request.on('error', failed);
    request.end(delivery.body);
  });
}
