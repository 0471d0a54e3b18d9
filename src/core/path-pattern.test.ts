import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { fitsPattern, segmentsOf } from './path-pattern.js';

describe('segmentsOf', () => {
  it('splits as the regex form it replaced does (a trailing slash ignored), for any path', () => {
    const path = fc.array(fc.constantFrom('', 'v1', 'calls', '{id}', 'x y', '%2F'), { maxLength: 6 }).map((parts) => `/${parts.join('/')}`);
    fc.assert(
      // Paths as the pipeline has them: always starting with /.
      fc.property(
        fc.oneof(
          path,
          fc.string().map((s) => `/${s}`),
        ),
        (p) => {
          expect(segmentsOf(p)).toEqual(p.replace(/\/$/, '').split('/').slice(1));
        },
      ),
      { numRuns: 2000 },
    );
  });

  it('matches a pattern segment by segment, `{name}` standing for any non-empty one', () => {
    expect(fitsPattern(segmentsOf('/v1/calls/{id}'), segmentsOf('/v1/calls/call_1'))).toBe(true);
    expect(fitsPattern(segmentsOf('/v1/calls/{id}'), segmentsOf('/v1/calls/'))).toBe(false);
    expect(fitsPattern(segmentsOf('/v1/calls/{id}'), segmentsOf('/v1/calls//x'))).toBe(false);
  });
});
