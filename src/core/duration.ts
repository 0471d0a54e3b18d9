import { SandboxError } from './errors.js';

/** A span of virtual time: milliseconds as a number, or a string such as `'500ms'`, `'30s'`, `'5m'`, `'2h'`, `'1d'`. */
export type Duration = number | `${number}${DurationUnit}` | string;
type DurationUnit = 'ms' | 's' | 'm' | 'h' | 'd';

const UNIT_MS: Record<DurationUnit, number> = { ms: 1, s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000 };
const PATTERN = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)$/;

/**
 * Turns a {@link Duration} into whole milliseconds, or throws a {@link SandboxError} that
 * names the accepted forms. `what` names the argument in the message.
 *
 * @example
 * toMs('90s', 'advance') // 90000
 */
export function toMs(value: Duration, what: string): number {
  if (typeof value === 'number') {
    if (Number.isFinite(value) && value >= 0) return Math.round(value);
  } else if (typeof value === 'string') {
    const match = PATTERN.exec(value.trim());
    if (match) return Math.round(Number(match[1]) * UNIT_MS[match[2] as DurationUnit]);
  }
  throw new SandboxError(
    `${what}: ${JSON.stringify(value)} is not a duration. Pass milliseconds as a non-negative number, ` +
      `or a string such as '500ms', '30s', '5m', '2h' or '1d'.`,
  );
}
