import { invalid, missing, name, type Infer, type ObjectSchema, type Schema, type Shape, show, standard, said } from './schema.js';

/**
 * Schemas of values taken as they came rather than written by a person: a snapshot's recorded
 * inputs (a `[key, value]` pair, an input told apart by its `kind`, free JSON arguments, raw
 * request text) and what a run reports. The same kit (core/schema.ts), its Standard Schema face
 * included.
 */

/** A fixed-length array whose items each have their own schema (a `[key, value]` pair). */
export function tuple<const S extends readonly Schema<unknown>[]>(
  items: S,
  description: string,
): Schema<{ -readonly [K in keyof S]: Infer<S[K]> }> {
  const hint = `a [${items.map((item) => item.hint).join(', ')}] array`;
  return standard({
    hint,
    parse(value, path) {
      if (!Array.isArray(value) || value.length !== items.length)
        throw invalid(said`${name(path)} must be ${hint}, got ${show(value)}.`, path);
      return items.map((item, i) => item.parse(value[i], `${path}[${i}]`)) as { -readonly [K in keyof S]: Infer<S[K]> };
    },
    openapi: () => ({
      type: 'array',
      prefixItems: items.map((item) => item.openapi()),
      // No item past the positions: a generator then reads a tuple (orval 8 refuses a union standing
      // for positions). The 3.0 rendering, which has no prefixItems, writes `items` as their union.
      items: false,
      minItems: items.length,
      maxItems: items.length,
      description,
    }),
  });
}

/**
 * One of several object forms told apart by the string field `key` (`kind: "request"`): the
 * field names the form, so a refusal names the form's own field, not a guess among all.
 */
export function tagged<K extends string, const V extends Record<string, ObjectSchema<Shape>>>(
  key: K,
  variants: V,
  description: string,
): Schema<Infer<V[keyof V]>> {
  const tags = Object.keys(variants);
  const choices = tags.map((tag) => JSON.stringify(tag)).join(', ');
  return standard({
    hint: `an object whose \`${key}\` is one of ${choices}`,
    parse(value, path) {
      if (value === null || typeof value !== 'object' || Array.isArray(value))
        throw invalid(said`${name(path)} must be an object, got ${show(value)}.`, path);
      const tag = (value as Record<string, unknown>)[key];
      const at = path ? `${path}.${key}` : key;
      if (tag === undefined) throw missing(said`${name(at)} is required: one of ${choices}.`, at);
      const variant = typeof tag === 'string' && Object.hasOwn(variants, tag) ? variants[tag] : undefined;
      if (variant === undefined) throw invalid(said`${name(at)} must be one of ${choices}, got ${show(tag)}.`, at);
      return variant.parse(value, path) as Infer<V[keyof V]>;
    },
    openapi: () => ({ description, oneOf: Object.values(variants).map((variant) => variant.openapi()) }),
  });
}

/** How deep {@link json} lets a value nest by default: far beyond any real input, far below what would exhaust the stack. */
export const MAX_JSON_DEPTH = 64;

/**
 * Any JSON value (null, a boolean, a finite number, a string, an array or an object of them),
 * nested at most `maxDepth` levels: a value nested deeper is refused naming the path where
 * the limit was passed, so a hostile body 10,000 arrays deep is a 400, never a stack overflow.
 */
export function json(description: string, maxDepth = MAX_JSON_DEPTH): Schema<unknown> {
  const walk = (value: unknown, path: string, depth: number): unknown => {
    if (value === null || typeof value === 'boolean' || typeof value === 'string') return value;
    if (typeof value === 'number') {
      if (!Number.isFinite(value)) throw invalid(said`${name(path)} must be a finite number, got ${show(value)}.`, path);
      return value;
    }
    if (typeof value !== 'object') throw invalid(said`${name(path)} must be a JSON value, got ${typeof value}.`, path);
    if (depth >= maxDepth) throw invalid(said`${name(path)} nests deeper than ${maxDepth} levels; flatten it.`, path);
    if (Array.isArray(value)) return value.map((item, i) => walk(item, `${path}[${i}]`, depth + 1));
    const out: Record<string, unknown> = {};
    for (const [k, v] of Object.entries(value)) out[k] = walk(v, path ? `${path}.${k}` : k, depth + 1);
    return out;
  };
  return standard({
    hint: 'a JSON value',
    parse: (value: unknown, path: string) => walk(value, path, 0),
    openapi: () => ({ description }),
  });
}

/** Any string, control characters included: text recorded as it came (a request body), not text a person wrote. */
export function anyString(description: string): Schema<string> {
  return standard({
    hint: 'a string',
    parse(value, path) {
      if (typeof value !== 'string') throw invalid(said`${name(path)} must be a string, got ${show(value)}.`, path);
      return value;
    },
    openapi: () => ({ type: 'string', description }),
  });
}
