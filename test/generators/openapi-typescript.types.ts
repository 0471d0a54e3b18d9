/**
 * The type test of openapi-typescript's types of the served document (run.sh compiles it with
 * tsc --strict): each @ts-expect-error line must be an error, or tsc fails with "Unused
 * '@ts-expect-error' directive".
 */
import type { paths } from './generated/openapi-typescript/openapi';

type PlaceCall = NonNullable<paths['/v1/calls']['post']['requestBody']>['content']['application/json'];
type Snapshot = paths['/__sandbox/sessions/{s}/snapshot']['get']['responses'][200]['content']['application/json'];
type Pair = Extract<Snapshot['inputs'][number], { kind: 'request' }>['headers'][number];
type Placed = paths['/v1/calls']['post']['responses'];
/** True when `K` must be present in `T`. */
type Present<T, K extends keyof T> = undefined extends T[K] ? false : true;

export function bodies(): void {
  const call: PlaceCall = { to: '+14155550123', from: '+14155550100' };
  // @ts-expect-error a missing `to`
  const missing: PlaceCall = { from: '+14155550100' };
  // @ts-expect-error an unknown field
  const unknown: PlaceCall = { to: '+14155550123', from: '+14155550100', ai_recepcionist: true };
  void [call, missing, unknown];
}

export function tuples(): void {
  // A snapshot's request header is a [name, value] pair, not an array of either.
  const pair: Pair = ['authorization', 'Bearer SVC_TEST_x'];
  // @ts-expect-error a third item
  const three: Pair = ['authorization', 'Bearer SVC_TEST_x', 'more'];
  // @ts-expect-error one item
  const one: Pair = ['authorization'];
  void [pair, three, one];
}

export function headers(): void {
  // Every answer the sandbox's road gives carries the rate-limit headers; the server's own 403 may not.
  const always: Present<Placed[201]['headers'], 'X-RateLimit-Remaining'> = true;
  const maybe: Present<Placed[403]['headers'], 'X-RateLimit-Remaining'> = false;
  void [always, maybe];
}
