import { describe, expect, it } from 'vitest';
import { integer, object, optional, string } from '../../src/core/schema.js';
import { json, MAX_JSON_DEPTH } from '../../src/core/schema-values.js';
import { parseScenario } from '../../src/index.js';
import { callBehavior } from '../../src/scripting/network.js';

/** The kit's Standard Schema face (standardschema.dev), as a tool that takes any validator uses it. */
describe('Standard Schema v1', () => {
  it('validate gives the parsed value, or one issue with the kit’s message and the field’s path', () => {
    const body = object(
      { name: string({ description: 'A name', max: 10 }), tries: optional(integer({ description: 'Tries', min: 0, max: 5 })) },
      { description: 'A body.' },
    );
    const std = body['~standard'];
    expect(std.version).toBe(1);
    expect(std.vendor).toBe('svc-sandbox');
    expect(std.validate({ name: 'a', tries: 2 })).toEqual({ value: { name: 'a', tries: 2 } });
    expect(std.validate({ name: 'a', tries: 9 })).toEqual({
      issues: [{ message: '`tries` must be an integer from 0 to 5, got 9.', path: ['tries'] }],
    });
    expect(std.validate({ name: 'a', trys: 1 })).toEqual({
      issues: [{ message: 'Unknown field `trys`: did you mean `tries`?', path: ['trys'] }],
    });
    expect(std.validate('x')).toEqual({ issues: [{ message: 'The body must be a JSON object, got "x".' }] });
  });

  it('the sandbox’s own schemas validate through it (a call behaviour)', () => {
    expect(callBehavior['~standard'].validate({ outcome: 'busy' })).toEqual({ value: { outcome: 'busy' } });
    const refused = callBehavior['~standard'].validate({ outcome: 'bussy' });
    expect('issues' in refused && refused.issues?.[0]?.path).toEqual(['outcome']);
  });

  it('a path into arrays gives numeric keys', () => {
    const list = object(
      { to: json('Anything'), items: optional(object({ n: integer({ description: 'n', min: 0, max: 1 }) }, { description: 'x' })) },
      { description: 'A body.' },
    );
    expect(list['~standard'].validate({ to: 1, items: { n: 5 } })).toMatchObject({ issues: [{ path: ['items', 'n'] }] });
  });
});

describe('json(): nested values have a depth limit', () => {
  it(`refuses a value nested deeper than ${MAX_JSON_DEPTH} levels with a 4xx-style refusal naming the path, and takes one at the limit`, () => {
    let deep: unknown = 0;
    for (let i = 0; i < 10_000; i++) deep = [deep];
    const result = json('Anything')['~standard'].validate(deep);
    expect(result).toMatchObject({ issues: [{ message: expect.stringMatching(/nests deeper than 64 levels/) }] });
    let atLimit: unknown = 0;
    for (let i = 0; i < MAX_JSON_DEPTH; i++) atLimit = [atLimit];
    expect(json('Anything')['~standard'].validate(atLimit)).toEqual({ value: atLimit });
  });
});

describe('parseScenario', () => {
  it('keeps startTime as written: an ISO 8601 string', () => {
    const scenario = parseScenario({ name: 'x', startTime: '2026-01-01T09:00:00Z', steps: [{ at: 0 }] });
    expect(scenario.startTime).toBe('2026-01-01T09:00:00Z');
    expect(() => parseScenario({ name: 'x', startTime: '2026-02-30', steps: [{ at: 0 }] })).toThrow(/startTime/);
  });
});
