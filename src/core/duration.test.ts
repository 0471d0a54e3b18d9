import { describe, expect, it } from 'vitest';
import { DURATION_JSON_SCHEMA, durationSchema, parseDuration, toMs } from './duration.js';

const pattern = new RegExp(DURATION_JSON_SCHEMA.anyOf[1]!.pattern!);

describe('durations', () => {
  it.each([
    ['500ms', 500],
    ['30s', 30_000],
    ['1.5s', 1_500],
    ['5 m', 300_000],
    ['2m10s', 130_000],
    ['1h30m', 5_400_000],
    ['1d2h', 93_600_000],
    ['1m30.5s', 90_500],
    ['1h 30m', 5_400_000],
    ['2m10s500ms', 130_500],
    ['1d1h1m1s1ms', 90_061_001],
  ])('%s is %d ms, and the JSON Schema accepts it', (text, ms) => {
    expect(parseDuration(text)).toBe(ms);
    expect(pattern.test(text)).toBe(true);
  });

  it.each(['10s2m', '1m1m', '30', 's', '', '1h-5m', '2m 10', '1w', '1.s', '5ms2s'])(
    '%j is refused, by the parser and by the JSON Schema alike',
    (text) => {
      expect(parseDuration(text)).toBeNull();
      expect(pattern.test(text)).toBe(false);
    },
  );

  it('a refused compound duration names the field and the form to write', () => {
    expect(() => toMs('10s2m', 'advance')).toThrow(/advance: "10s2m" is not a duration\. .*largest unit first such as '2m10s'/);
    expect(() => durationSchema.parse('10s2m', 'steps[0].at')).toThrow(/steps\[0\]\.at.*'2m10s'/);
  });
});
