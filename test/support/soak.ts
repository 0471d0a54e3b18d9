/**
 * The size of a long run: the 10,000-session cycle, the model runs, the webhook invariant.
 *
 * `npm test` runs them light, still a real check of every assertion, so a first run stays fast.
 * `npm run test:soak` (vitest --mode soak, which sets `SVC_SOAK=1`) runs only these files, at
 * full size; CI runs it as its own step after `npm test`. `SVC_SOAK=1 npx vitest run <file>`
 * does the same for one file.
 *
 * A test file that calls `soakSize` belongs in SOAK_FILES of vitest.config.ts.
 */
export const SOAK = process.env.SVC_SOAK === '1';

/** `light` in `npm test`, `soak` in `npm run test:soak`. */
export function soakSize(light: number, soak: number): number {
  return SOAK ? soak : light;
}
