import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import Ajv2020 from 'ajv/dist/2020.js';
import { describe, expect, it } from 'vitest';
import { parseScenario, scenarioJsonSchema } from '../../src/index.js';

/**
 * The published JSON Schema of scenario files (schemas/scenario.schema.json, exported as
 * `svc-sandbox/scenario.schema.json`) is the code's schema: regenerate it with
 * `npm run schema:scenario` when this fails. Editors validate the examples with it.
 */
const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const published = JSON.parse(readFileSync(`${ROOT}schemas/scenario.schema.json`, 'utf8'));
const examples = readdirSync(`${ROOT}examples/scenarios`).filter((f) => f.endsWith('.json'));
const pkg = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));

describe('schemas/scenario.schema.json', () => {
  it('is what the code validates with (run `npm run schema:scenario` to regenerate it)', () => {
    expect(published).toEqual(scenarioJsonSchema());
  });

  it('ships in the package, exported as svc-sandbox/scenario.schema.json', () => {
    expect(pkg.files).toContain('schemas');
    expect(pkg.exports['./scenario.schema.json']).toBe('./schemas/scenario.schema.json');
  });

  const ajv = new Ajv2020.default({ strict: false, allErrors: true });
  const validate = ajv.compile(published);

  it.each(examples)('accepts examples/scenarios/%s, as the code does', (file) => {
    const scenario = JSON.parse(readFileSync(`${ROOT}examples/scenarios/${file}`, 'utf8'));
    expect(validate(scenario), JSON.stringify(validate.errors)).toBe(true);
    expect(() => parseScenario(scenario)).not.toThrow();
  });

  it.each([
    [{ steps: [{ at: 0 }] }],
    [{ name: 'x', steps: [] }],
    [{ name: 'x', steps: [{ at: 'soon' }] }],
    [{ name: 'x', steps: [{ at: 0, request: { method: 'POST', path: '/v1/calls' }, expect: {} }] }],
    [{ name: 'x', steps: [{ at: 0, reqest: {} }] }],
    [{ name: 'x', network: { '+14155550123': { outcome: 'bussy' } }, steps: [{ at: 0 }] }],
  ])('refuses %j, as the code does', (scenario) => {
    expect(validate(scenario)).toBe(false);
    expect(() => parseScenario(scenario)).toThrow(
      expect.objectContaining({
        name: 'SandboxError',
        code: expect.stringMatching(/^(invalid|missing)_parameter$/),
        param: expect.any(String),
      }),
    );
  });
});
