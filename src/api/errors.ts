import { RuleViolation, SandboxError, type SandboxErrorCode } from '../core/errors.js';
import { Invalid } from '../core/schema.js';

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
export class ApiError<C extends string = ErrorCode> {
  constructor(
    readonly status: number,
    readonly code: C,
    readonly message: string,
    readonly param?: string,
    readonly headers: Record<string, string> = {},
  ) {}

  toBody(): { error: { code: C; message: string; param?: string } } {
    return errorEnvelope(this.code, this.message, this.param);
  }
}

/**
 * The status of each {@link SandboxError} code when the control API answers it: bad input
 * 400, an unknown thing (or a closed session) 404, the wrong state or an advance cut short 409.
 */
const CONTROL_STATUS: Record<SandboxErrorCode, number> = {
  invalid_parameter: 400,
  missing_parameter: 400,
  invalid_options: 400,
  unhandled_request: 400,
  not_found: 404,
  closed: 404,
  conflict: 409,
  interrupted: 409,
  listener_failed: 500,
};

/**
 * The one mapping from what a road into the sandbox throws to the answer it gives: an
 * {@link ApiError} as is, a schema's {@link Invalid} as 400, a domain {@link RuleViolation} as 400
 * or 422 (docs/architecture.md, "Rules"), and, on the control API (`library: true`), a scripting
 * call's {@link SandboxError} by its code. Anything else is no refusal but a failure of the
 * sandbox (`undefined`): the caller answers it with a 500.
 */
export function refusalOf(error: unknown, { library = false }: { library?: boolean } = {}): ApiError<string> | undefined {
  if (error instanceof ApiError) return error;
  if (error instanceof Invalid) return new ApiError(400, error.code, error.message, error.param);
  if (error instanceof RuleViolation)
    return new ApiError(error.code === 'invalid_parameter' ? 400 : 422, error.code, error.message, error.param);
  if (library && error instanceof SandboxError) {
    const code = error.code === 'invalid_options' ? 'invalid_parameter' : error.code === 'closed' ? 'not_found' : error.code;
    return new ApiError(CONTROL_STATUS[error.code], code, error.message, error.param);
  }
  return undefined;
}

/**
 * The error envelope every error answer carries (docs/errors.md), for the API and the standalone
 * server alike: `param` only when a field is at fault.
 */
export function errorEnvelope<C extends string = ErrorCode>(
  code: C,
  message: string,
  param?: string,
): { error: { code: C; message: string; param?: string } } {
  return { error: { code, message, ...(param ? { param } : {}) } };
}

export const badRequest = (message: string, param?: string) => new ApiError(400, 'invalid_parameter', message, param);
export const missing = (message: string, param: string) => new ApiError(400, 'missing_parameter', message, param);
export const notFound = (message: string) => new ApiError(404, 'not_found', message);
