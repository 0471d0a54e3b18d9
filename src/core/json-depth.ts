import { invalid, type Schema, standard } from './schema.js';
import { MAX_JSON_DEPTH } from './schema-values.js';

/**
 * How many levels of arrays and objects a JSON value the sandbox takes may nest (the top value
 * is level 1): every body of the API and the control API, scenario files on every road, and the
 * files the CLI reads (docs/errors.md, "Limits"). One number with the schema kit's `json()`
 * (core/schema-values.ts), which holds it. Real inputs need a handful: a scenario's
 * `steps[0].request.body` is level 5, and a `/v1` body inside it a few more. Far below what
 * would exhaust the stack of the code that walks a value (a 10,000-deep body used to answer 500
 * "Maximum call stack size exceeded").
 */
export { MAX_JSON_DEPTH };

/** A container met on the walk, with what leads to it (kept as links: a path is made only for the one refused). */
interface Level {
  value: object;
  depth: number;
  parent: Level | null;
  key: string | number;
}

/** A key as a path shows it, cut short when it is long (a refusal never echoes a megabyte key). */
function segment(key: string | number): string {
  if (typeof key === 'number') return `[${key}]`;
  return `.${key.length > 40 ? `${key.slice(0, 40)}…` : key}`;
}

/**
 * The path (`steps[0].request.body.a`, below `root`) of the first array or object nested deeper
 * than `limit` levels, or null when none is. An explicit stack, never recursion, and it stops at
 * the first container past the limit: its cost is the number of containers above the limit,
 * whatever the value's depth.
 */
export function tooDeepAt(value: unknown, root = '', limit = MAX_JSON_DEPTH): string | null {
  if (value === null || typeof value !== 'object') return null;
  const stack: Level[] = [{ value, depth: 1, parent: null, key: '' }];
  for (let level = stack.pop(); level !== undefined; level = stack.pop()) {
    if (level.depth > limit) {
      const keys: Array<string | number> = [];
      for (let at: Level | null = level; at?.parent; at = at.parent) keys.push(at.key);
      const below = keys.reverse().map(segment).join('');
      return root ? `${root}${below}` : below.replace(/^\./, '');
    }
    const entries: Array<[string | number, unknown]> = Array.isArray(level.value)
      ? [...level.value.entries()]
      : Object.entries(level.value);
    // Last first onto the stack, so the walk goes in document order and names the first such path.
    for (const [key, child] of entries.reverse()) {
      if (child !== null && typeof child === 'object') stack.push({ value: child, depth: level.depth + 1, parent: level, key });
    }
  }
  return null;
}

/** `path` for a message: whole when short, else its start, an ellipsis and its last step. */
function shortPath(path: string): string {
  if (path.length <= 200) return path;
  const last = /(\.[^.[]*|\[\d+\])$/.exec(path)?.[0] ?? '';
  return `${path.slice(0, 150)}…${last}`;
}

/**
 * Refuses (the schema kit's {@link invalid}: a 400 on the API's roads, a SandboxError in the
 * library, exit 2 in the CLI) a value nested deeper than {@link MAX_JSON_DEPTH}, naming the path
 * where the limit was passed.
 *
 * @example
 * checkDepth(JSON.parse(text)); // Invalid: `a.a.a…` nests deeper than 64 levels of arrays and objects…
 */
export function checkDepth(value: unknown, root = '', limit = MAX_JSON_DEPTH): void {
  const path = tooDeepAt(value, root, limit);
  if (path === null) return;
  throw invalid(tooDeepText(path, limit, ' (docs/errors.md, "Limits")'), path);
}

/** What a refusal of a value nested too deep says; `reference` where the limit is documented (a file the CLI reads has none). */
export function tooDeepText(path: string, limit = MAX_JSON_DEPTH, reference = ''): string {
  return `\`${shortPath(path) || 'the value'}\` nests deeper than ${limit} levels of arrays and objects, the limit of a JSON input${reference}: flatten it.`;
}

/** `schema`, which first refuses a value nested deeper than {@link MAX_JSON_DEPTH} (then parses as `schema` does), its Standard Schema face included. */
export function withinDepth<S extends Schema<unknown>>(schema: S): S {
  return standard({
    ...schema,
    parse: (value: unknown, path: string) => {
      checkDepth(value, path);
      return schema.parse(value, path);
    },
  }) as S;
}
