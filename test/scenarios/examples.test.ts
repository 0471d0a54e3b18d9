import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { createSandbox, type ScenarioResult } from '../../src/index.js';

/**
 * Every scenario of examples/scenarios/ runs green on a fresh sandbox, as
 * `svc-sandbox run` runs it (test/scenarios/cli.test.ts runs one through the bin).
 */
const DIR = fileURLToPath(new URL('../../examples/scenarios/', import.meta.url));
const FILES = readdirSync(DIR)
  .filter((f) => f.endsWith('.json'))
  .sort();

async function runFile(file: string): Promise<ScenarioResult> {
  const scenario = JSON.parse(readFileSync(`${DIR}${file}`, 'utf8'));
  const sandbox = createSandbox({ seed: scenario.seed ?? 0, ...(scenario.startTime ? { startTime: scenario.startTime } : {}) });
  try {
    const result = await sandbox.run(scenario);
    expect(sandbox.internalErrors()).toEqual([]);
    return result;
  } finally {
    sandbox.close();
  }
}

describe('examples/scenarios', () => {
  it('holds the five stories the docs promise', () => {
    expect(FILES).toEqual([
      'ai-receptionist-transfer.json',
      'busy-then-answered.json',
      'dialer-campaign.json',
      'sms-stop.json',
      'webhook-down-then-replayed.json',
    ]);
  });

  it.each(FILES)('%s passes', async (file) => {
    const result = await runFile(file);
    expect(result.failure, JSON.stringify(result.failure)).toBeNull();
    expect(result.passed).toBe(true);
    expect(result.held).toBeGreaterThan(0);
  });
});
