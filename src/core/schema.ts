// Longer than most files: the kit's constructors share one Schema shape, its messages and its
// Standard Schema face, and each builds on the others (object on optional, nullable on its inner
// schema); split by kind they would import each other back and forth. Free-JSON values: schema-values.ts.
import { type FieldRef, field, render, type Said, said } from './errors.js';
import { E164 } from './phone.js';
import type { StandardSchemaProps, StandardSchemaV1 } from './standard-schema.js';
import { nearest } from './suggest.js';

export type { StandardIssue, StandardResult, StandardSchemaProps, StandardSchemaV1 } from './standard-schema.js';

/**
 * A small schema kit: each shape is written once, and that one definition validates input
 * (with messages that name the field and the fix), gives the TypeScript type (`Infer`) and
 * its JSON Schema (OpenAPI 3.1 dialect) through `openapi()`. The HTTP routes, the scripting
 * API (`sandbox.calls.inbound`, `network.setBehavior`, ...), the control API of the
 * standalone server and `createSandbox` options all validate with it; each turns the
 * neutral {@link Invalid} into its own error (a 400 response, or a `SandboxError`).
 * Why a kit of our own rather than zod: docs/decisions/0001-schema-kit.md.
 */
export interface Schema<T> extends StandardSchemaV1<unknown, T> {
  parse(value: unknown, path: string): T;
  openapi(): JsonSchema;
  /** What a valid value looks like, for "is required" messages. */
  readonly hint: string;
}

/** The parts of a schema before the kit adds its Standard Schema face ({@link standard}). */
type Parts<T> = Omit<Schema<T>, '~standard'>;

/** `campaign.to[2]` → `['campaign', 'to', 2]`: a refusal's path as Standard Schema gives it. */
function pathOf(param: string): PropertyKey[] {
  return [...param.matchAll(/([^.[\]]+)|\[(\d+)\]/g)].map(([, key = '', index]) => (index === undefined ? key : Number(index)));
}

/**
 * Gives a schema its Standard Schema face: `validate` parses with the schema, and a refusal
 * becomes one issue with the kit's message and the field's path. Not enumerable, so a schema
 * spread into another object stays the plain parts.
 */
export function standard<S extends Parts<unknown>>(schema: S): NoInfer<S & StandardSchemaV1<unknown, ReturnType<S['parse']>>> {
  const props: StandardSchemaProps<unknown, ReturnType<S['parse']>> = {
    version: 1,
    vendor: 'svc-sandbox',
    validate(value) {
      try {
        return { value: schema.parse(value, '') as ReturnType<S['parse']> };
      } catch (error) {
        if (!(error instanceof Invalid)) throw error;
        return { issues: [{ message: error.message, ...(error.param ? { path: pathOf(error.param) } : {}) }] };
      }
    },
  };
  return Object.defineProperty(schema, '~standard', { value: props, enumerable: false }) as S &
    StandardSchemaV1<unknown, ReturnType<S['parse']>>;
}

export type JsonSchema = Record<string, unknown>;
export type Infer<S> = S extends Schema<infer T> ? T : never;

export interface Optional<T> extends Schema<T | undefined> {
  readonly optional: true;
}

/**
 * A value refused by a schema: a plain value, not an `Error` (a stack trace would describe
 * the kit, not the input, and capturing one on every refused request was a visible cost).
 */
export class Invalid {
  /** The message in the library's words. */
  readonly message: string;
  /** The message as its parts ({@link said}), so each boundary names the field its own way. */
  readonly parts: Said;
  constructor(
    readonly code: 'invalid_parameter' | 'missing_parameter',
    told: string | Said,
    /** The field at fault, as a path (`campaign.to[2]`); absent when it is the whole value. */
    readonly param?: string,
    /** An unknown field: its path and the fix, so a caller may name it with its own word for a field. */
    readonly unknown?: { path: string; fix: string },
  ) {
    this.parts = typeof told === 'string' ? [told] : told;
    this.message = render(this.parts);
  }
}

export const invalid = (told: string | Said, param?: string) => new Invalid('invalid_parameter', told, param || undefined);
export const missing = (told: string | Said, param: string) => new Invalid('missing_parameter', told, param);
export { said };

/** Shows a rejected value briefly inside a message. */
export function show(value: unknown): string {
  if (value === null) return 'null';
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return JSON.stringify(value.length > 40 ? `${value.slice(0, 40)}…` : value);
  if (typeof value === 'object') return 'an object';
  return String(value);
}

/** A field named in a message, as a part ({@link said}): the library says `` `to` ``, or "the value" at the top. */
export const name = (path: string): FieldRef => field(path);

/**
 * The one rule for text (docs/errors.md, "Text"): no control characters (C0 and DEL), and
 * no lone UTF-16 surrogates, which no UTF-8 client could have meant and which JSON.stringify
 * would send on as escapes that receivers choke on. Multi-line text may carry tab, line
 * feed and carriage return.
 */
const CONTROL_LINE = /[\x00-\x1f\x7f]/;
const CONTROL_MULTILINE = /[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/;
/** The text rule as the document's patterns say it (lone surrogates are beyond a JSON Schema pattern). */
export const TEXT_PATTERN = '^[^\\x00-\\x1f\\x7f]*$';
const MULTILINE_TEXT_PATTERN = '^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f]*$';

/** Why `text` breaks the text rule, or null when it keeps it. */
export function textProblem(text: string, multiline = false): string | null {
  if ((multiline ? CONTROL_MULTILINE : CONTROL_LINE).test(text)) {
    return multiline
      ? 'must not contain control characters (such as NUL); tab, line feed and carriage return are allowed'
      : 'must not contain control characters (such as NUL, tab or a line break)';
  }
  if (!text.isWellFormed()) return 'must be well-formed Unicode (it contains a lone surrogate)';
  return null;
}

/** A description as the middle of a sentence: without its own full stop. */
const withoutStop = (text: string) => (text.endsWith('.') ? text.slice(0, -1) : text);

export function string(opts: {
  description: string;
  min?: number;
  max?: number;
  pattern?: RegExp;
  /** Completes "must be …" when the pattern fails, e.g. "E.164, e.g. +14155550123". */
  patternHint?: string;
  example?: string;
  /** Tab, line feed and carriage return allowed (message bodies). Default false. */
  multiline?: boolean;
  format?: string;
}): Schema<string> {
  const min = opts.min ?? 1;
  return standard({
    hint: opts.patternHint ?? `a string (${opts.description})`,
    parse(value, path) {
      if (typeof value !== 'string') throw invalid(said`${name(path)} must be a string, got ${show(value)}.`, path);
      if (value.length < min) throw invalid(said`${name(path)} must not be empty: ${withoutStop(opts.description)}.`, path);
      if (opts.max !== undefined && value.length > opts.max)
        throw invalid(said`${name(path)} must be at most ${opts.max} characters, got ${value.length}.`, path);
      const problem = textProblem(value, opts.multiline);
      if (problem) throw invalid(said`${name(path)} ${problem}.`, path);
      if (opts.pattern && !opts.pattern.test(value))
        throw invalid(said`${name(path)} must be ${opts.patternHint ?? `a string matching ${opts.pattern}`} (got ${show(value)}).`, path);
      return value;
    },
    openapi: () => ({
      type: 'string',
      description: opts.description,
      ...(min > 0 ? { minLength: min } : {}),
      ...(opts.max !== undefined ? { maxLength: opts.max } : {}),
      // Its own pattern (which keeps out control characters too), or the text rule's.
      pattern: opts.pattern?.source ?? (opts.multiline ? MULTILINE_TEXT_PATTERN : TEXT_PATTERN),
      ...(opts.format ? { format: opts.format } : {}),
      ...(opts.example ? { examples: [opts.example] } : {}),
    }),
  });
}

export function phoneNumber(description: string): Schema<string> {
  return string({ description, pattern: E164, patternHint: 'E.164, e.g. +14155550123', example: '+14155550123' });
}

/** One of a fixed list of strings; give it the shared `as const` array, never a retyped copy. */
export function oneOf<const V extends string>(values: readonly V[], description: string): Schema<V> {
  const list = values.map((v) => `"${v}"`).join(', ');
  return standard({
    hint: `one of ${list}`,
    parse(value, path) {
      if (typeof value === 'string' && (values as readonly string[]).includes(value)) return value as V;
      const guess = typeof value === 'string' ? nearest(value, values) : undefined;
      throw invalid(said`${name(path)} must be one of ${list}, got ${show(value)}${guess ? `: did you mean "${guess}"?` : '.'}`, path);
    },
    openapi: () => ({ type: 'string', enum: [...values], description }),
  });
}

/** Exactly `value`: the constant fields of a shape (`object: "campaign"`). */
export function literal<const V extends string>(value: V, description: string): Schema<V> {
  return standard({
    hint: JSON.stringify(value),
    parse(input, path) {
      if (input !== value) throw invalid(said`${name(path)} must be ${JSON.stringify(value)}, got ${show(input)}.`, path);
      return value;
    },
    openapi: () => ({ type: 'string', const: value, description }),
  });
}

export function boolean(description: string): Schema<boolean> {
  return standard({
    hint: 'true or false',
    parse(value, path) {
      if (typeof value !== 'boolean') throw invalid(said`${name(path)} must be a boolean (true or false), got ${show(value)}.`, path);
      return value;
    },
    openapi: () => ({ type: 'boolean', description }),
  });
}

/** An integer; with `fromQuery` it is read from a query-string value such as `"25"`. */
export function integer(opts: { description: string; min: number; max: number; fromQuery?: boolean }): Schema<number> {
  const range = `an integer from ${opts.min} to ${opts.max}`;
  return standard({
    hint: range,
    parse(value, path) {
      const n = opts.fromQuery && typeof value === 'string' && /^-?\d+$/.test(value) ? Number(value) : value;
      if (typeof n !== 'number' || !Number.isInteger(n) || n < opts.min || n > opts.max)
        throw invalid(said`${name(path)} must be ${range}, got ${show(value)}.`, path);
      return n;
    },
    openapi: () => ({ type: 'integer', minimum: opts.min, maximum: opts.max, description: opts.description }),
  });
}

/** A finite number within bounds (seconds of a transcript segment, say). */
export function number(opts: { description: string; min: number; max?: number }): Schema<number> {
  const range = opts.max === undefined ? `a number of at least ${opts.min}` : `a number from ${opts.min} to ${opts.max}`;
  return standard({
    hint: range,
    parse(value, path) {
      if (typeof value !== 'number' || !Number.isFinite(value) || value < opts.min || (opts.max !== undefined && value > opts.max))
        throw invalid(said`${name(path)} must be ${range}, got ${show(value)}.`, path);
      return value;
    },
    openapi: () => ({
      type: 'number',
      minimum: opts.min,
      ...(opts.max === undefined ? {} : { maximum: opts.max }),
      description: opts.description,
    }),
  });
}

const ISO_8601 = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/;

/** Date.parse rolls a day past its month's end over (2026-02-30 → 2026-03-02); such a date is refused instead. */
function dayExists(text: string): boolean {
  const [year, month, day] = [Number(text.slice(0, 4)), Number(text.slice(5, 7)), Number(text.slice(8, 10))];
  const leap = year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0);
  return day <= ([31, leap ? 29 : 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][month - 1] ?? 0);
}

/**
 * An ISO 8601 date or date-time, UTC unless it gives an offset (a test's result must not depend
 * on the machine's time zone); parsed to epoch milliseconds. The document gives the pattern
 * it accepts rather than `format: date-time`, which would refuse a plain date (2026-01-01)
 * and a time without seconds or offset that the sandbox takes (docs/pagination.md).
 */
export function dateTime(description: string): Schema<number> {
  return standard({
    hint: 'an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z',
    parse(value, path) {
      // A date-time without an offset is UTC, as a date alone is: never the machine's time zone.
      const utc = typeof value === 'string' && /T[\d:.]+$/.test(value) ? `${value}Z` : value;
      const ms = typeof value === 'string' && ISO_8601.test(value) && dayExists(value) ? Date.parse(utc as string) : NaN;
      if (Number.isNaN(ms))
        throw invalid(said`${name(path)} must be an ISO 8601 date-time, e.g. 2026-01-01T00:00:00Z (got ${show(value)}).`, path);
      return ms;
    },
    openapi: () => ({ type: 'string', pattern: ISO_8601.source, description, examples: ['2026-01-01', '2026-01-01T09:30:00Z'] }),
  });
}

/** A {@link dateTime} kept as written (a scenario's `startTime`): checked the same way, not turned into milliseconds. */
export function dateTimeText(description: string): Schema<string> {
  const inner = dateTime(description);
  return standard({
    hint: inner.hint,
    parse(value: unknown, path: string) {
      inner.parse(value, path);
      return String(value);
    },
    openapi: inner.openapi,
  });
}

/**
 * A timestamp the sandbox writes: `Date.toISOString()`, UTC with milliseconds. Output only.
 * Its years run past RFC 3339's four digits (the virtual clock spans all a Date can hold, in
 * ISO 8601's expanded form `+275760-09-13T00:00:00.000Z`), so the document gives the pattern,
 * not `format: date-time`.
 */
export function timestamp(description: string): Schema<string> {
  const pattern = /^(\d{4}|[+-]\d{6})-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
  return standard({
    hint: 'an ISO 8601 UTC timestamp, e.g. 2026-01-01T00:00:00.000Z',
    parse(value, path) {
      if (typeof value !== 'string' || !pattern.test(value) || Number.isNaN(Date.parse(value))) {
        throw invalid(said`${name(path)} must be an ISO 8601 UTC timestamp, e.g. 2026-01-01T00:00:00.000Z (got ${show(value)}).`, path);
      }
      return value;
    },
    openapi: () => ({ type: 'string', pattern: pattern.source, description, examples: ['2026-01-01T00:00:00.000Z'] }),
  });
}

export function array<T>(item: Schema<T>, opts: { description: string; min?: number; max?: number }): Schema<T[]> {
  const min = opts.min ?? 0;
  const count = opts.max === undefined ? `at least ${min}` : `${min} to ${opts.max}`;
  return standard({
    hint: `an array of ${count} items, each ${item.hint}`,
    parse(value, path) {
      if (!Array.isArray(value)) throw invalid(said`${name(path)} must be an array, got ${show(value)}.`, path);
      if (value.length < min || (opts.max !== undefined && value.length > opts.max))
        throw invalid(said`${name(path)} must hold ${count} items, got ${value.length}.`, path);
      return value.map((v, i) => item.parse(v, `${path}[${i}]`));
    },
    openapi: () => ({
      type: 'array',
      items: item.openapi(),
      ...(min > 0 ? { minItems: min } : {}),
      ...(opts.max === undefined ? {} : { maxItems: opts.max }),
      description: opts.description,
    }),
  });
}

export function optional<T>(schema: Schema<T>): Optional<T> {
  return standard({
    optional: true as const,
    hint: schema.hint,
    parse: (value: unknown, path: string) => (value === undefined ? undefined : schema.parse(value, path)),
    openapi: schema.openapi,
  });
}

/** `null` is a value of its own (it clears a number's aspect; a call not yet ended has `ended_at: null`). */
export function nullable<T>(schema: Schema<T>): Schema<T | null> {
  return standard({
    hint: `${schema.hint}, or null`,
    parse: (value, path) => (value === null ? null : schema.parse(value, path)),
    openapi: () => {
      const inner = schema.openapi();
      // OpenAPI 3.1 (JSON Schema 2020-12) spells it as a type list, or anyOf for a schema without one.
      if (typeof inner.type === 'string') {
        const { enum: values, ...rest } = inner;
        return { ...rest, type: [inner.type, 'null'], ...(Array.isArray(values) ? { enum: [...values, null] } : {}) };
      }
      return { anyOf: [inner, { type: 'null' }] };
    },
  });
}

/** A dictionary of name → value (template variables). */
export function record<T>(value: Schema<T>, opts: { description: string; key: RegExp; keyHint: string }): Schema<Record<string, T>> {
  return standard({
    hint: `an object of ${opts.keyHint} → ${value.hint}`,
    parse(input, path) {
      if (input === null || typeof input !== 'object' || Array.isArray(input))
        throw invalid(said`${name(path)} must be an object of ${opts.keyHint} → ${value.hint} (got ${show(input)}).`, path);
      // A null prototype keeps a `__proto__` key an ordinary (and so unknown, refused) name.
      const out: Record<string, T> = Object.create(null);
      for (const [key, v] of Object.entries(input)) {
        const full = `${path}.${key}`;
        if (!opts.key.test(key)) throw invalid(said`${name(full)}: ${JSON.stringify(key)} is not ${opts.keyHint}.`, full);
        out[key] = value.parse(v, full);
      }
      return out;
    },
    openapi: () => ({
      type: 'object',
      propertyNames: { pattern: opts.key.source },
      additionalProperties: value.openapi(),
      description: opts.description,
    }),
  });
}

/**
 * A schema with its own parse (a URL with rules beyond a pattern, say). Its document is `like`'s,
 * a schema of the kit that describes the same values (`string({ format: 'uri', ... })`), so the
 * shape is written in the kit's one language; `openapi` is for what the kit cannot say (a union of
 * forms picked by the parse, a value described by words alone).
 */
export function custom<T>(
  opts: { hint: string; parse(value: unknown, path: string): T } & ({ like: Schema<unknown> } | { openapi(): JsonSchema }),
): Schema<T> {
  const described = 'like' in opts ? opts.like : opts;
  return standard({
    hint: opts.hint,
    parse: (value: unknown, path: string) => opts.parse(value, path),
    openapi: () => described.openapi(),
  });
}

/**
 * `schema` as one place that uses it describes it: the same parse, with the document's
 * `description` and `examples` replaced where given (an event as the advance answer's `event`, a
 * report with the example of one operation). The example is a value of the schema's type, so the
 * compiler checks it. Annotate a schema before making it `optional`.
 */
export function annotated<T>(schema: Schema<T>, meta: { description?: string; example?: NoInfer<T> }): Schema<T> {
  return standard({
    hint: schema.hint,
    parse: (value: unknown, path: string) => schema.parse(value, path),
    openapi: () => ({
      ...schema.openapi(),
      ...(meta.description === undefined ? {} : { description: meta.description }),
      ...(meta.example === undefined ? {} : { examples: [meta.example] }),
    }),
  });
}

/** A value `inner` accepts, then turned into what the code needs (`'30s'` → 30000). */
export function map<A, B>(inner: Schema<A>, to: (value: A, path: string) => B): Schema<B> {
  return standard({
    hint: inner.hint,
    parse: (value: unknown, path: string) => to(inner.parse(value, path), path),
    openapi: inner.openapi,
  });
}

/** Either of two schemas, tried in order; the message of the one that fits best is kept. */
export function either<A, B>(a: Schema<A>, b: Schema<B>, hint: string): Schema<A | B> {
  return standard({
    hint,
    parse(value, path) {
      try {
        return a.parse(value, path);
      } catch (first) {
        if (!(first instanceof Invalid)) throw first;
        try {
          return b.parse(value, path);
        } catch (second) {
          if (!(second instanceof Invalid)) throw second;
          throw invalid(said`${name(path)} must be ${hint}, got ${show(value)}.`, path);
        }
      }
    },
    openapi: () => ({ anyOf: [a.openapi(), b.openapi()] }),
  });
}

export type Shape = Record<string, Schema<unknown>>;
type RequiredKeys<S extends Shape> = { [K in keyof S]: S[K] extends Optional<unknown> ? never : K }[keyof S];
type Flatten<T> = { [K in keyof T]: T[K] } & {};
export type ObjectOf<S extends Shape> = Flatten<
  { [K in RequiredKeys<S>]: Infer<S[K]> } & { [K in Exclude<keyof S, RequiredKeys<S>>]?: Infer<S[K]> }
>;

export interface ObjectSchema<S extends Shape> extends Schema<ObjectOf<S>> {
  /** The fields, to build another shape from (`object({ ...callSchema.shape, timeline })`). */
  readonly shape: S;
  /** The example it was written with (`examples[0]` of its document), to build others' examples from. */
  readonly example: ObjectOf<S> | undefined;
}

/**
 * A JSON object with known fields only: an unknown field is refused with the nearest
 * known name (a typo such as `ai_recepcionist` would otherwise be silently ignored).
 * `label` words the messages for a body (`field`), a query string (`query parameter`) or
 * a scripting call (`option`). `rules` adds the either/or rules between fields; the
 * same rules are written into the JSON Schema (`openapi`), so a document-driven client is
 * exactly as strict as the sandbox.
 */
export function object<S extends Shape>(
  shape: S,
  opts: {
    description: string;
    label?: 'field' | 'query parameter' | 'option';
    /** Checks across fields, run after each field has parsed. */
    check?: (value: ObjectOf<S>, path: string) => void;
    /** The JSON Schema form of `check` (`oneOf`, `not`, `dependentRequired`...). */
    rules?: JsonSchema;
    /**
     * The either/or forms of the object, when `check` allows exactly these: the document then
     * gives `oneOf` of complete object schemas, one a form (its fields, those it requires,
     * nothing else), instead of the whole shape with `rules`. Generated clients (openapi-ts,
     * orval, openapi-typescript) make a union of exact types of it, so a body missing a
     * required field, with an unknown field or a wrong type does not compile; of `rules`, written
     * with boolean sub-schemas, openapi-ts made a type that took `{}` (docs/openapi.md).
     * The forms must exclude each other (of any two, one requires a field the other does not take), and
     * `check` must accept exactly the bodies one form describes: test/api/request-strictness.test.ts
     * holds the two to the same verdicts.
     */
    variants?: readonly Variant<S>[];
    /**
     * A realistic value of the object, as the sandbox would write it: the document's
     * `examples` of the schema, from which src/api/openapi.ts `exampleOf` builds each
     * response's example (a list's is a page holding this one).
     */
    example?: ObjectOf<S>;
  },
): ObjectSchema<S> {
  const keys = Object.keys(shape);
  const fields: Array<[string, Schema<unknown>]> = Object.entries(shape);
  const fieldOf = (key: string): Schema<unknown> => {
    const schema = shape[key];
    if (schema === undefined) throw new Error(`object: no field ${key} in the shape`);
    return schema;
  };
  const label = opts.label ?? 'field';
  return standard({
    shape,
    example: opts.example,
    hint: `an object with ${keys.map((k) => `\`${k}\``).join(', ')}`,
    parse(value, path) {
      if (value === null || typeof value !== 'object' || Array.isArray(value)) {
        throw invalid(
          path ? said`${name(path)} must be an object, got ${show(value)}.` : `The body must be a JSON object, got ${show(value)}.`,
          path,
        );
      }
      const input = value as Record<string, unknown>;
      for (const key of Object.keys(input)) {
        if (Object.hasOwn(shape, key)) continue;
        const full = path ? `${path}.${key}` : key;
        const guess = nearest(key, keys);
        const fix = guess ? `did you mean \`${guess}\`?` : `remove it. Accepted: ${keys.join(', ')}.`;
        throw new Invalid('invalid_parameter', said`Unknown ${label} ${name(full)}: ${fix}`, full, { path: full, fix });
      }
      const out: Record<string, unknown> = {};
      for (const [key, schema] of fields) {
        const full = path ? `${path}.${key}` : key;
        const raw = input[key];
        if (raw === undefined && !('optional' in schema)) throw missing(said`${name(full)} is required: ${schema.hint}.`, full);
        const parsed = schema.parse(raw, full);
        if (parsed !== undefined) out[key] = parsed;
      }
      opts.check?.(out as ObjectOf<S>, path);
      return out as ObjectOf<S>;
    },
    openapi: () => {
      const required = fields.filter(([, schema]) => !('optional' in schema)).map(([key]) => key);
      const examples = opts.example === undefined ? {} : { examples: [opts.example] };
      if (opts.variants) {
        return {
          description: opts.description,
          ...examples,
          oneOf: opts.variants.map((v) => ({
            type: 'object',
            title: v.title,
            additionalProperties: false,
            properties: Object.fromEntries(v.fields.map((k) => [k, { ...fieldOf(k).openapi(), ...v.narrow?.[k] }])),
            // The shape's required fields are in every form.
            required: [...new Set([...required, ...v.required])],
          })),
        };
      }
      return {
        type: 'object',
        description: opts.description,
        additionalProperties: false,
        properties: Object.fromEntries(fields.map(([key, schema]) => [key, schema.openapi()])),
        ...(required.length > 0 ? { required } : {}),
        ...opts.rules,
        ...examples,
      };
    },
  });
}

/** One either/or form of an object (see `variants` of {@link object}). */
export interface Variant<S extends Shape> {
  /** Names the form in the document (generators may name its type after it). */
  title: string;
  /** The fields this form takes; every field the shape requires must be among them. */
  fields: readonly (keyof S & string)[];
  /** The fields this form requires, beyond those the shape requires. */
  required: readonly (keyof S & string)[];
  /** What this form adds to a field's own schema (`{ minItems: 1 }`). */
  narrow?: Partial<Record<keyof S & string, JsonSchema>>;
}

/** Reads a query string into a plain object for an `object` schema; a repeated parameter is refused. */
export function queryObject(params: URLSearchParams): Record<string, string> {
  // A null prototype keeps a `__proto__` parameter an ordinary (and so unknown, refused) key.
  const out: Record<string, string> = Object.create(null);
  for (const [key, value] of params) {
    if (Object.hasOwn(out, key)) throw invalid(`Query parameter \`${key}\` is given more than once; give it once.`, key);
    out[key] = value;
  }
  return out;
}
