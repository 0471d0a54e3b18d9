import type { Scenario, ScenarioStep } from '../../src/index.js';

/**
 * A generated scenario of `requests` request steps (the shape of the one that held a server for
 * 12 s at 6,500 steps, 716 KB): a call placed every 20 ms of virtual time (50 a second, under the
 * rate limit), each 100th read back and checked, and (unless `end` is false) the last call's end
 * expected 70 s later. It passes.
 */
export function bigScenario(requests: number, { end = true }: { end?: boolean } = {}): Scenario {
  const steps: ScenarioStep[] = [];
  for (let i = 0; i < requests; i++) {
    const at = `${i * 20}ms`;
    steps.push({ at, request: { method: 'POST', path: '/v1/calls', body: { to: '+14155550123', from: '+14155550100' }, as: `c${i}` } });
    if (i % 100 === 99) steps.push({ at, expect: { resources: [{ path: `/v1/calls/{{c${i}.id}}`, fields: { status: 'ringing' } }] } });
  }
  const last = `{{c${requests - 1}.id}}`;
  if (end)
    steps.push({
      at: `${requests * 20 + 70_000}ms`,
      expect: { resources: [{ path: `/v1/calls/${last}`, fields: { status: 'completed' } }] },
    });
  return { name: `${requests} calls`, steps };
}
