/** A cell of a distance table; outside the table no path leads, so it costs everything. */
const cell = (row: readonly number[], i: number): number => row[i] ?? Number.POSITIVE_INFINITY;

/** Levenshtein distance, small inputs only (field and event names). */
function distance(a: string, b: string): number {
  let row = Array.from({ length: b.length + 1 }, (_, j) => j);
  for (let i = 1; i <= a.length; i++) {
    const next = [i];
    for (let j = 1; j <= b.length; j++) {
      next.push(Math.min(cell(row, j) + 1, cell(next, j - 1) + 1, cell(row, j - 1) + (a[i - 1] === b[j - 1] ? 0 : 1)));
    }
    row = next;
  }
  return cell(row, b.length);
}

/**
 * The candidate nearest to `input`, if it is near enough to be a likely typo
 * (`call.start` → `call.started`, `ai_recepcionist` → `ai_receptionist`).
 */
export function nearest(input: string, candidates: readonly string[]): string | undefined {
  let best: string | undefined;
  let bestScore = Infinity;
  const lower = input.toLowerCase();
  for (const candidate of candidates) {
    const folded = candidate.toLowerCase();
    const score = folded === lower ? 0 : folded.startsWith(lower) || lower.startsWith(folded) ? 0.5 : distance(lower, folded);
    if (score < bestScore) {
      best = candidate;
      bestScore = score;
    }
  }
  return best !== undefined && bestScore <= Math.max(2, Math.floor(input.length / 3)) ? best : undefined;
}

/**
 * How far a request path is from a route pattern, segment by segment (`/v1/call` is 1 from
 * `/v1/calls`): a `{name}` segment takes any value for free, a wrong literal costs its
 * edit distance, a missing or extra segment its length (a missing `{name}` costs 2).
 */
export function pathDistance(actual: readonly string[], pattern: readonly string[]): number {
  const drop = (segment: string) => (segment.startsWith('{') ? 2 : Math.max(segment.length, 1));
  let row = [0];
  for (const want of pattern) row.push(cell(row, row.length - 1) + drop(want));
  for (const segment of actual) {
    const next = [cell(row, 0) + drop(segment)];
    for (const [j, want] of pattern.entries()) {
      const swap = want.startsWith('{') ? 0 : distance(segment.toLowerCase(), want);
      next.push(Math.min(cell(row, j + 1) + drop(segment), cell(next, j) + drop(want), cell(row, j) + swap));
    }
    row = next;
  }
  return cell(row, pattern.length);
}
