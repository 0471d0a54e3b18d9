import { SandboxError } from './errors.js';
import { custom, invalid, name, show, type Schema, said } from './schema.js';
import { MAX_TIME_MS } from './time.js';

/**
 * A span of virtual time: milliseconds as a number, or a string of one or more parts, each a
 * number and a unit, largest unit first: `'500ms'`, `'30s'`, `'5m'`, `'2h'`, `'1d'`, `'2m10s'`,
 * `'1h30m'`, `'1d2h'`, `'1.5s'` (docs/clock-and-determinism.md, "Durations").
 */
export type Duration = number | `${number}${DurationUnit}` | string;
type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd';

/** Largest first: the order the parts of a compound duration are written in. */
const UNITS: readonly DurationUnit[] = ['d', 'h', 'm', 's', 'ms'];
const UNIT_MS: Record<DurationUnit, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
/** The longest span a Date range holds (about 547,000 years); anything longer is a mistake. */
export const MAX_DURATION_MS = 2 * MAX_TIME_MS;

/**
 * The grammar of a duration string, the one {@link parseDuration} and the JSON Schema share: one
 * or more parts of a number and a unit, each unit at most once and from the largest down
 * (`'2m10s'`, not `'10s2m'` or `'1m1m'`: written any other way, a duration is more likely a
 * typo than a sum). No look-around, so the OpenAPI tools of other languages (Go's RE2) read it:
 * one alternative per largest unit, each followed by the smaller ones, each optional.
 */
const DURATION_PATTERN = (() => {
  const part = (unit: DurationUnit) => `\\d+(\\.\\d+)?\\s*${unit}\\s*`;
  const from = (i: number) =>
    part(UNITS[i]!) +
    UNITS.slice(i + 1)
      .map((u) => `(${part(u)})?`)
      .join('');
  return `^\\s*(${UNITS.map((_, i) => from(i)).join('|')})$`;
})();
const DURATION = new RegExp(DURATION_PATTERN);

/** The milliseconds a duration string sums to, or null when it is not one ({@link DURATION_PATTERN}). */
function sum(text: string): number | null {
  if (!DURATION.test(text)) return null;
  let ms = 0;
  for (const [, amount, unit] of text.matchAll(/(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)/g)) ms += Number(amount) * UNIT_MS[unit as DurationUnit];
  return ms;
}

/**
 * The milliseconds of a {@link Duration}, or null when it is not one (negative, not finite,
 * longer than any Date range, or a string of another form).
 *
 * @example
 * parseDuration('2m10s') // 130000
 * parseDuration('10s2m') // null: largest unit first
 */
export function parseDuration(value: unknown): number | null {
  let ms: number | null = null;
  if (typeof value === 'number') ms = Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  else if (typeof value === 'string') {
    const total = sum(value.trim());
    if (total !== null) ms = Math.round(total);
  }
  return ms !== null && ms <= MAX_DURATION_MS ? ms : null;
}

export const DURATION_HINT =
  "milliseconds as a non-negative number, or a string such as '500ms', '30s', '5m', '2h' or '1d', or parts largest unit first such as '2m10s' or '1h30m'";

/** The JSON Schema of a duration: milliseconds, or parts of a number and a unit. */
export const DURATION_JSON_SCHEMA = {
  anyOf: [
    { type: 'number', minimum: 0, description: 'Milliseconds.' },
    { type: 'string', pattern: DURATION_PATTERN, examples: ['30s', '25h', '2m10s'] },
  ],
};

/** A duration, checked and kept as given (`'30s'` stays `'30s'`): the one schema every caller of the kit uses. */
export const durationSchema: Schema<Duration> = custom({
  hint: DURATION_HINT,
  parse(value, path) {
    if (parseDuration(value) === null)
      throw invalid(said`${name(path)} is not a duration: pass ${DURATION_HINT} (got ${show(value)}).`, path);
    return value as Duration;
  },
  openapi: () => DURATION_JSON_SCHEMA,
});

/**
 * Turns a {@link Duration} into whole milliseconds, or throws a {@link SandboxError} that
 * names the accepted forms. `what` names the argument in the message.
 *
 * @example
 * toMs('90s', 'advance') // 90000
 */
export function toMs(value: Duration, what: string, param?: string): number {
  const ms = parseDuration(value);
  if (ms === null) throw new SandboxError(`${what}: ${JSON.stringify(value)} is not a duration. Pass ${DURATION_HINT}.`, { param });
  return ms;
}

/**
 * The milliseconds of a duration a schema has already checked (`durationSchema`): a value that
 * is not one is a bug of the sandbox, not of its user, and throws as one.
 */
export function checkedMs(value: Duration): number {
  const ms = parseDuration(value);
  if (ms === null) throw new Error(`checkedMs: ${JSON.stringify(value)} was not checked as a duration`);
  return ms;
}
