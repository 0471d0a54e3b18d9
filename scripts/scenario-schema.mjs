// Writes schemas/scenario.schema.json, the published JSON Schema of scenario files, from the
// schema the code validates them with (src/scenarios/schema.ts). Run `npm run schema:scenario`
// after changing the format; test/scenarios/schema.test.ts fails while the two differ.
import { writeFileSync } from 'node:fs';
import { ensureBuilt } from './ensure-built.mjs';

ensureBuilt('schema:scenario');
const { scenarioJsonSchema } = await import('../dist/index.js');
const file = new URL('../schemas/scenario.schema.json', import.meta.url);
writeFileSync(file, `${JSON.stringify(scenarioJsonSchema(), null, 2)}\n`);
console.log('wrote schemas/scenario.schema.json');
