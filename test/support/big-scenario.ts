/** The long-work scenario, shared with `npm run bench` (bench/long-work.mjs runs the same shape at full size). */
export { bigScenario } from '../../bench/long-work.mjs';
