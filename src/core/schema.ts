import { ApiError, badRequest, missing } from '../api/errors.js';
import { nearest } from './suggest.js';
import { E164 } from './phone.js';

/**
 * A tiny schema kit: each resource's request shape is written once, and that one
 * definition validates input (with messages that name the field and the fix), gives the
 * TypeScript type (`Infer`) and the OpenAPI description (`openapi()`), so there is never
 * a second hand-written copy of a shape.
 */
export interface Schema<T> {
  parse(value: unknown, path: string): T;
  openapi(): Record<string, unknown>;
  /** What a valid value looks like, for "is required" messages. */
  readonly hint: string;
}

export type Infer<S> = S extends Schema<infer T> ? T : never;

export interface Optional<T> extends Schema<T | undefined> {
  readonly optional: true;
}

/** Shows a rejected value briefly inside a message. */
export function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}

const name = (path: string) => `\`${path}\``;

export function string(opts: {
  description: string;
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** Completes "must be …" when the pattern fails, e.g. "E.164, e.g. +14155550123". */
  patternHint?: string;
  example?: string;
}): Schema<string> {
  const min = opts.min ?? 1;
  return {
    hint: opts.patternHint ?? `a string (${opts.description})`,
    parse(value, path) {
      if (typeof value !== 'string') throw badRequest(`${name(path)} must be a string, got ${show(value)}.`, path);
      if (value.length < min) throw badRequest(`${name(path)} must not be empty: ${opts.description}.`, path);
      if (opts.max !== undefined && value.length > opts.max)
        throw badRequest(`${name(path)} must be at most ${opts.max} characters, got ${value.length}.`, path);
      if (opts.pattern && !opts.pattern.test(value))
        throw badRequest(`${name(path)} must be ${opts.patternHint ?? `a string matching ${opts.pattern}`} (got ${show(value)}).`, path);
      return value;
    },
    openapi: () => ({
      type: 'string',
      description: opts.description,
      minLength: min,
      ...(opts.max !== undefined ? { maxLength: opts.max } : {}),
      ...(opts.pattern ? { pattern: opts.pattern.source } : {}),
      ...(opts.example ? { example: opts.example } : {}),
    }),
  };
}


export function phoneNumber(description: string): Schema<string> {
  return string({ description, pattern: E164, patternHint: 'E.164, e.g. +14155550123', example: '+14155550123' });
}

export function oneOf<const V extends string>(values: readonly V[], description: string): Schema<V> {
  const list = values.map((v) => `"${v}"`).join(', ');
  return {
    hint: `one of ${list}`,
    parse(value, path) {
      if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as V;
      const guess = typeof value === 'string' ? nearest(value, values) : undefined;
      throw badRequest(
        `${name(path)} must be one of ${list}, got ${show(value)}${guess ? `: did you mean "${guess}"?` : '.'}`,
        path,
      );
    },
    openapi: () => ({ type: 'string', enum: [...values], description }),
  };
}

export function boolean(description: string): Schema<boolean> {
  return {
    hint: 'true or false',
    parse(value, path) {
      if (typeof value !== 'boolean') throw badRequest(`${name(path)} must be a boolean (true or false), got ${show(value)}.`, path);
      return value;
    },
    openapi: () => ({ type: 'boolean', description }),
  };
}

/** An integer; with `fromQuery` it is read from a query-string value such as `"25"`. */
export function integer(opts: { description: string; min: number; max: number; fromQuery?: boolean }): Schema<number> {
  const range = `an integer from ${opts.min} to ${opts.max}`;
  return {
    hint: range,
    parse(value, path) {
      const n = opts.fromQuery && typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < opts.min || n > opts.max)
        throw badRequest(`${name(path)} must be ${range}, got ${show(value)}.`, path);
      return n;
    },
    openapi: () => ({ type: 'integer', minimum: opts.min, maximum: opts.max, description: opts.description }),
  };
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Date.parse rolls a day past its month's end over (2026-02-30 → 2026-03-02); such a date is refused instead. */
function dayExists(text: string): boolean {
  const [year, month, day] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= ([31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0);
}

/** An ISO 8601 date or date-time; parsed to epoch milliseconds. */
export function dateTime(description: string): Schema<number> {
  return {
    hint: 'an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z',
    parse(value, path) {
      const ms = typeof value === 'string' && ISO_8601.test(value) && dayExists(value) ? Date.parse(value) : NaN;
      if (Number.isNaN(ms))
        throw badRequest(`${name(path)} must be an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z (got ${show(value)}).`, path);
      return ms;
    },
    openapi: () => ({ type: 'string', format: 'date-time', description }),
  };
}

export function array<T>(item: Schema<T>, opts: { description: string; min: number; max: number }): Schema<T[]> {
  return {
    hint: `an array of ${opts.min} to ${opts.max} items, each ${item.hint}`,
    parse(value, path) {
      if (!Array.isArray(value)) throw badRequest(`${name(path)} must be an array, got ${show(value)}.`, path);
      if (value.length < opts.min || value.length > opts.max)
        throw badRequest(`${name(path)} must hold ${opts.min} to ${opts.max} items, got ${value.length}.`, path);
      return value.map((v, i) => item.parse(v, `${path}[${i}]`));
    },
    openapi: () => ({ type: 'array', items: item.openapi(), minItems: opts.min, maxItems: opts.max, description: opts.description }),
  };
}

export function optional<T>(schema: Schema<T>): Optional<T> {
  return {
    optional: true,
    hint: schema.hint,
    parse: (value, path) => (value === undefined ? undefined : schema.parse(value, path)),
    openapi: schema.openapi,
  };
}

type Shape = Record<string, Schema<unknown>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends Optional<unknown> ? never : K }[keyof S];
type ObjectOf<S extends Shape> = { [K in RequiredKeys<S>]: Infer<S[K]> } & {
  [K in Exclude<keyof S, RequiredKeys<S>>]?: Infer<S[K]>;
};

/**
 * A JSON object with known fields only: an unknown field is refused with the nearest
 * known name (a typo such as `ai_recepcionist` would otherwise be silently ignored).
 * `label` words the messages for a body (`field`) or a query string (`query parameter`).
 */
export function object<S extends Shape>(
  shape: S,
  opts: { description: string; label?: 'field' | 'query parameter' },
): Schema<ObjectOf<S>> {
  const keys = Object.keys(shape);
  const label = opts.label ?? 'field';
  return {
    hint: `an object with ${keys.map((k) => `\`${k}\``).join(', ')}`,
    parse(value, path) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw badRequest(
          path ? `${name(path)} must be an object, got ${show(value)}.` : `The body must be a JSON object, got ${show(value)}.`,
          path || undefined,
        );
      }
      const input = value as Record<string, unknown>;
      for (const key of Object.keys(input)) {
        if (Object.hasOwn(shape, key)) continue;
        const full = path ? `${path}.${key}` : key;
        const guess = nearest(key, keys);
        throw badRequest(
          `Unknown ${label} ${name(full)}: ${guess ? `did you mean \`${guess}\`?` : `remove it. Accepted: ${keys.join(', ')}.`}`,
          full,
        );
      }
      const out: Record<string, unknown> = {};
      for (const key of keys) {
        const schema = shape[key]!;
        const full = path ? `${path}.${key}` : key;
        const raw = input[key];
        if (raw === undefined && !('optional' in schema)) {
          throw missing(`${name(full)} is required: ${schema.hint}.`, full);
        }
        const parsed = schema.parse(raw, full);
        if (parsed !== undefined) out[key] = parsed;
      }
      return out as ObjectOf<S>;
    },
    openapi: () => ({
      type: 'object',
      description: opts.description,
      additionalProperties: false,
      properties: Object.fromEntries(keys.map((k) => [k, shape[k]!.openapi()])),
      required: keys.filter((k) => !('optional' in shape[k]!)),
    }),
  };
}

/** Reads a query string into a plain object for an `object` schema; a repeated parameter is refused. */
export function queryObject(params: URLSearchParams): Record<string, string> {
  // A null prototype keeps a `__proto__` parameter an ordinary (and so unknown, refused) key.
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of params) {
    if (Object.hasOwn(out, key)) throw badRequest(`Query parameter \`${key}\` is given more than once; give it once.`, key);
    out[key] = value;
  }
  return out;
}

export { ApiError };
