/** The `error.code` values the sandbox answers with (docs/errors.md, plus the few it adds; see docs/errors.md). */
export const ERROR_CODES = [
  'invalid_json',
  'invalid_parameter',
  'missing_parameter',
  'unsupported_content_type',
  'payload_too_large',
  'invalid_api_key',
  'live_key_not_allowed',
  'forbidden',
  'not_found',
  'method_not_allowed',
  'unreachable_destination',
  'call_not_active',
  'number_unavailable',
  'number_not_provisioned',
  'recording_not_ready',
  'rate_limited',
  'internal_error',
  'service_unavailable',
] as const;
export type ErrorCode = (typeof ERROR_CODES)[number];

/** The JSON error body of every non-2xx response. */
export interface ErrorBody {
  error: { code: ErrorCode; message: string; param?: string };
}

/**
 * An error of the simulated API: a value with a status, code, message and optional
 * param. Thrown inside the API layer and turned into a `Response` in one place
 * (`pipeline.ts`); it never reaches the user's test as an exception. It is deliberately
 * not an `Error`: a stack trace would describe the sandbox, not the request, and capturing
 * one on every refused request was a visible share of the cost of a 4xx answer.
 */
export class ApiError {
  constructor(
    readonly status: number,
    readonly code: ErrorCode,
    readonly message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {}

  toBody(): ErrorBody {
    return errorEnvelope(this.code, this.message, this.param);
  }
}

/**
 * The error envelope every error answer carries (docs/errors.md), for the API and the standalone
 * server alike: `param` only when a field is at fault.
 */
export function errorEnvelope<C extends string = ErrorCode>(code: C, message: string, param?: string): { error: { code: C; message: string; param?: string } } {
  return { error: { code, message, ...(param ? { param } : {}) } };
}

export const badRequest = (message: string, param?: string) => new ApiError(400, 'invalid_parameter', message, param);
export const missing = (message: string, param: string) => new ApiError(400, 'missing_parameter', message, param);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
