/** What one finding of Redocly's linter says, as the tests read it. */
interface Problem {
  severity: 'error' | 'warn';
  ruleId: string;
  message: string;
  location: Array<{ pointer?: string }>;
}

interface Redocly {
  createConfig(config: { extends: string[] }): Promise<unknown>;
  lintFromString(options: { source: string; absoluteRef: string; config: unknown }): Promise<Problem[]>;
}

/**
 * The findings of @redocly/openapi-core's `recommended` rules on `doc`, one line each
 * (`severity ruleId: message at pointer`). The package is loaded by a name the type check does
 * not follow and typed here by hand: its own types (json-schema-to-ts) cost `tsc` two seconds.
 */
export async function redoclyFindings(doc: unknown): Promise<Array<{ severity: Problem['severity']; line: string }>> {
  const name = '@redocly/openapi-core';
  const { createConfig, lintFromString } = (await import(name)) as Redocly;
  const problems = await lintFromString({
    source: JSON.stringify(doc),
    absoluteRef: 'openapi.json',
    config: await createConfig({ extends: ['recommended'] }),
  });
  return problems.map((p) => ({ severity: p.severity, line: `${p.severity} ${p.ruleId}: ${p.message} at ${p.location[0]?.pointer}` }));
}
