import { SandboxError } from './errors.js';
import { custom, invalid, name, show, type Schema } from './schema.js';
import { MAX_TIME_MS } from './time.js';

/** A span of virtual time: milliseconds as a number, or a string such as `'500ms'`, `'30s'`, `'5m'`, `'2h'`, `'1d'`. */
export type Duration = number | `${number}${DurationUnit}` | string;
type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd';

const UNIT_MS: Record<DurationUnit, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;
/** The longest span a Date range holds (about 547,000 years); anything longer is a mistake. */
export const MAX_DURATION_MS = 2 * MAX_TIME_MS;

/**
 * The milliseconds of a {@link Duration}, or null when it is not one (negative, not finite,
 * longer than any Date range, or a string of another form).
 */
export function parseDuration(value: unknown): number | null {
  let ms: number | null = null;
  if (typeof value === 'number') ms = Number.isFinite(value) && value >= 0 ? Math.round(value) : null;
  else if (typeof value === 'string') {
    const match = PATTERN.exec(value.trim());
    if (match) ms = Math.round(Number(match[1]) * UNIT_MS[match[2] as DurationUnit]);
  }
  return ms !== null && ms <= MAX_DURATION_MS ? ms : null;
}

export const DURATION_HINT = "milliseconds as a non-negative number, or a string such as '500ms', '30s', '5m', '2h' or '1d'";

/** The JSON Schema of a duration: milliseconds, or a number and a unit. */
export const DURATION_JSON_SCHEMA = {
  anyOf: [
    { type: 'number', minimum: 0, description: 'Milliseconds.' },
    { type: 'string', pattern: '^\\d+(\\.\\d+)?\\s*(ms|s|m|h|d)$', examples: ['30s', '25h'] },
  ],
};

/** A duration, checked and kept as given (`'30s'` stays `'30s'`): the one schema every caller of the kit uses. */
export const durationSchema: Schema<Duration> = custom({
  hint: DURATION_HINT,
  parse(value, path) {
    if (parseDuration(value) === null) throw invalid(`${name(path)} is not a duration: pass ${DURATION_HINT} (got ${show(value)}).`, path);
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
