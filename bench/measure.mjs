/** Mean microseconds per call of `fn` over `n` sequential calls, after a warm-up of up to 200 calls. */
export async function measure(n, fn) {
  for (let i = 0; i < Math.min(200, n); i++) await fn();
  const start = performance.now();
  for (let i = 0; i < n; i++) await fn();
  return ((performance.now() - start) * 1000) / n;
}

/** One line of the report: the ratio a/b with both absolute numbers, and the target if any. */
export function ratioLine(label, a, b, unit, target) {
  const ratio = a / b;
  const verdict = target === undefined ? '' : ratio <= target ? `  (target ≤ ${target}×: met)` : `  (target ≤ ${target}×: MISSED)`;
  return `${label.padEnd(58)} ${ratio.toFixed(2)}×   ${fmt(a)} vs ${fmt(b)} ${unit}${verdict}`;
}

const fmt = (x) => (x >= 100 ? x.toFixed(0) : x >= 10 ? x.toFixed(1) : x.toFixed(2));
