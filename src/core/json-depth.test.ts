import { describe, expect, it } from 'vitest';
import { checkDepth, MAX_JSON_DEPTH, tooDeepAt } from './json-depth.js';
import { Invalid } from './schema.js';

/** `{"a": {"a": ... leaf}}`, `levels` objects deep. */
function nested(levels: number, key = 'a'): unknown {
  let value: unknown = 1;
  for (let i = 0; i < levels; i++) value = { [key]: value };
  return value;
}

describe('tooDeepAt', () => {
  it('lets 64 levels through and names the 65th, counting arrays and objects alike', () => {
    expect(tooDeepAt(nested(MAX_JSON_DEPTH))).toBeNull();
    expect(tooDeepAt(nested(MAX_JSON_DEPTH + 1))).toBe(Array(MAX_JSON_DEPTH).fill('a').join('.'));
    expect(tooDeepAt({ list: [[{ x: [] }]] }, '', 5)).toBeNull();
    expect(tooDeepAt({ list: [[{ x: [[]] }]] }, '', 5)).toBe('list[0][0].x[0]');
  });

  it('names the first path in document order, below the given root', () => {
    const value = { ok: { b: 1 }, first: { deep: { er: {} } }, second: { deep: { er: {} } } };
    expect(tooDeepAt(value, 'steps[2].request.body', 3)).toBe('steps[2].request.body.first.deep.er');
  });

  it('is no recursion: a value 1,000,000 levels deep is walked in bounded stack, and only down to the limit', () => {
    const deep = JSON.parse(`${'['.repeat(1_000_000)}${']'.repeat(1_000_000)}`);
    expect(tooDeepAt(deep)).toMatch(/^\[0\]/);
    // With the limit out of reach every level is walked: on an explicit stack, where recursion would overflow.
    expect(tooDeepAt(deep, '', Number.POSITIVE_INFINITY)).toBeNull();
    // Its cost is the containers above the limit, whatever the depth: each level of a 10,000-deep
    // value counts the reads of its one field, and only the 64 above the limit are read.
    let reads = 0;
    let chain: object = {};
    for (let i = 0; i < 10_000; i++) {
      const inner = chain;
      chain = {
        get a() {
          reads++;
          return inner;
        },
      };
    }
    expect(tooDeepAt(chain, '', 64)).toBe(Array(64).fill('a').join('.'));
    expect(reads).toBe(64);
  });

  it('scalars and empty containers are no depth', () => {
    expect(tooDeepAt(null)).toBeNull();
    expect(tooDeepAt('deep')).toBeNull();
    expect(tooDeepAt([], '', 1)).toBeNull();
    expect(tooDeepAt([[]], '', 1)).toBe('[0]');
  });
});

describe('checkDepth', () => {
  it('refuses with the schema kit refusal naming the path, cut short in the message when long', () => {
    const deep = nested(10_000, 'child');
    let refusal: unknown;
    try {
      checkDepth(deep, 'steps[0].request.body');
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(Invalid);
    const { param, message, code } = refusal as Invalid;
    expect(code).toBe('invalid_parameter');
    expect(param).toBe(`steps[0].request.body.${Array(MAX_JSON_DEPTH).fill('child').join('.')}`);
    expect(message).toMatch(/^`steps\[0\]\.request\.body\.child\.child\..*…\.child` nests deeper than 64 levels of arrays and objects/);
    expect(message.length).toBeLessThan(300);
  });

  it('cuts a long key short, so a refusal never echoes a huge one', () => {
    const key = 'k'.repeat(100_000);
    let param: string | undefined;
    try {
      checkDepth({ [key]: nested(MAX_JSON_DEPTH) });
    } catch (error) {
      param = (error as Invalid).param;
    }
    expect(param).toMatch(/^k{40}…\.a\./);
    expect(param!.length).toBeLessThan(400);
  });
});
