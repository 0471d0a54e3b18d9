/**
 * The vocabulary of the bad-input corpus: what one malformed request is, what answer it is
 * owed, and the keys and numbers the corpus uses. Paths, headers and string bodies may hold
 * `<<name>>` placeholders for the ids of the state seeded before the run (`Seeded` in
 * state.ts), so the corpus also aims at resources that exist.
 */

export type Transport = 'fetch' | 'http' | 'axios' | 'handle';
export const TRANSPORTS: readonly Transport[] = ['fetch', 'http', 'axios', 'handle'];

export const KEY = 'SVC_TEST_alice';
export const OTHER_KEY = 'SVC_TEST_bob';
export const TO = '+14155550123';
export const GOOD_AUTH = `Bearer ${KEY}`;
export const OTHER_AUTH = `Bearer ${OTHER_KEY}`;

export interface Expected {
  status: number;
  code: string;
  /** The field named by `error.param`; null: none; undefined: not checked. */
  param?: string | null;
  /** Headers the answer must carry, e.g. `allow` of a 405. */
  headers?: Record<string, string>;
}

export interface BadRequest {
  /** Unique; says what is wrong. */
  name: string;
  method: string;
  /** Path and query relative to the base URL. */
  path: string;
  /** `authorization` defaults to the good key and `content-type` (with a body) to JSON; null leaves one out. */
  headers?: Record<string, string | null>;
  body?: string | Uint8Array<ArrayBuffer> | (() => FormData);
  expect: Expected;
  /** Transports that can carry this request as meant (default: any). */
  via?: readonly Transport[];
}

/** A JSON text of the value, so odd strings (lone surrogates, NUL) arrive as JSON escapes. */
export const json = (value: unknown): string => JSON.stringify(value);

export const error = (status: number, code: string, param?: string | null, headers?: Record<string, string>): Expected => ({
  status,
  code,
  param,
  ...(headers ? { headers } : {}),
});
export const bad = (param: string | null) => error(400, 'invalid_parameter', param);
export const missing = (param: string) => error(400, 'missing_parameter', param);
export const unprocessable = (code: string, param: string | null) => error(422, code, param);
export const notFound = error(404, 'not_found', null);
export const invalidJson = error(400, 'invalid_json', null);
export const unsupportedType = error(400, 'unsupported_content_type', null);
export const tooLarge = error(413, 'payload_too_large', null);
