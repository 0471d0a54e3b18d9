/** Levenshtein distance, small inputs only (field and event names). */
function distance(a: string, b: string): number {
  const row = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    let prev = row[0]!;
    row[0] = i;
    for (let j = 1; j <= b.length; j++) {
      const cur = row[j]!;
      row[j] = Math.min(row[j]! + 1, row[j - 1]! + 1, prev + (a[i - 1] === b[j - 1] ? 0 : 1));
      prev = cur;
    }
  }
  return row[b.length]!;
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
  for (let j = 1; j <= pattern.length; j++) row[j] = row[j - 1]! + drop(pattern[j - 1]!);
  for (let i = 1; i <= actual.length; i++) {
    const next = [row[0]! + drop(actual[i - 1]!)];
    for (let j = 1; j <= pattern.length; j++) {
      const want = pattern[j - 1]!;
      const swap = want.startsWith('{') ? 0 : distance(actual[i - 1]!.toLowerCase(), want);
      next[j] = Math.min(row[j]! + drop(actual[i - 1]!), next[j - 1]! + drop(want), row[j - 1]! + swap);
    }
    row = next;
  }
  return row[pattern.length]!;
}
