// Schema kit: our hand-written kit (src/core/schema.ts) against zod 4, and valibot 1 when it is
// installed outside the repo, doing the same work: the same three request shapes, the same
// error messages and ApiError values (bench/schema-zod.mjs, bench/schema-valibot.mjs hold the
// code that takes). Parse cost side by side in interleaved best-of rounds, module import time
// in fresh child processes, lines of code, and what each one's JSON Schema output looks like
// beside our openapi(). Run on its own with `node bench/schema.mjs [--quick]` after a build.
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { ratioLine } from './measure.mjs';

// ---- Every import path in one place: src/ is about to be restructured. ----
const rel = (p) => new URL(p, import.meta.url).href;
const VALIBOT_DIR = pathToFileURL(process.env.VALIBOT_DIR ?? '/tmp/valibot-scratch/node_modules').href;
const PATHS = {
  kit: rel('../dist/core/schema.js'), // object, queryObject, …
  errors: rel('../dist/core/schema.js'), // invalid, missing (the kit's neutral refusals)
  suggest: rel('../dist/core/suggest.js'), // nearest
  phone: rel('../dist/core/phone.js'), // E164
  templates: rel('../dist/state/message-content.js'), // MAX_BODY_CHARS
  calls: rel('../dist/api/routes/calls.js'), // placeCallBody, listCallsQuery
  messages: rel('../dist/api/routes/messages.js'), // sendMessageBody
  kitSource: rel('../src/core/schema.ts'), // for the line count only
  zod: import.meta.resolve('zod'),
  zodMini: import.meta.resolve('zod/mini'),
  zodPackage: rel('../node_modules/zod'),
  zodAdapter: rel('./schema-zod.mjs'),
  // valibot is not a dependency: `npm install valibot@1.5.0 @valibot/to-json-schema@1.8.0` in a scratch folder.
  valibot: `${VALIBOT_DIR}/valibot/dist/index.mjs`,
  valibotJsonSchema: `${VALIBOT_DIR}/@valibot/to-json-schema/dist/index.mjs`,
  valibotPackage: `${VALIBOT_DIR}/valibot`,
  valibotAdapter: rel('./schema-valibot.mjs'),
};
const hasValibot = existsSync(fileURLToPath(PATHS.valibot)) && existsSync(fileURLToPath(PATHS.valibotAdapter));

// ---- The inputs: three real shapes, a few timed cases, and many checked ones. ----
const FROM = '+14155550100';
const TO = '+14155550123';
const queryOf = (kit, qs) => kit.queryObject(new URLSearchParams(qs));
const TIMED = [
  ['calls', 'POST /v1/calls body, valid', { to: TO, from: FROM, ai_receptionist: true }],
  ['calls', 'POST /v1/calls body, invalid `to`', { to: 'abc', from: FROM }],
  ['calls', 'POST /v1/calls body, unknown field (did you mean)', { to: TO, from: FROM, ai_recepcionist: true }],
  [
    'messages',
    'POST /v1/messages body, valid MMS',
    { from: FROM, to: TO, body: 'Your code is 123456', media_urls: ['https://example.com/cat.jpg'] },
  ],
  ['query', 'GET /v1/calls query, valid', 'limit=25&status=answered&created_after=2026-01-01T00:00:00Z'],
];
/** Not timed: every one must give the kit's exact result (value, or error code, message and param). */
const CHECKED = [
  ...TIMED,
  ['calls', 'campaign', { campaign: { to: [TO, '+442071838750'], from: FROM } }],
  ['calls', 'to not a string', { to: 5 }],
  ['calls', 'to empty', { to: '' }],
  ['calls', 'boolean', { ai_receptionist: 'yes' }],
  ['calls', 'unknown field, no guess', { zzzzzzzz: 1 }],
  ['calls', 'unknown field before a bad field', { to: 'abc', qqqqqqqq: 1 }],
  ['calls', 'body null', null],
  ['calls', 'body array', []],
  ['calls', 'campaign not an object', { campaign: 'x' }],
  ['calls', 'campaign.to empty', { campaign: { to: [], from: FROM } }],
  ['calls', 'campaign.to too long, bad items', { campaign: { to: Array(1001).fill('x'), from: FROM } }],
  ['calls', 'campaign.to[1]', { campaign: { to: [TO, 'x'], from: FROM } }],
  ['calls', 'campaign.from missing', { campaign: { to: [TO] } }],
  ['calls', 'campaign.to missing', { campaign: {} }],
  ['calls', 'campaign unknown before bad item', { campaign: { to: ['+1'], from: FROM, extra: 1 } }],
  ['messages', 'valid template', { from: FROM, to: TO, template: { id: 'otp', variables: { code: 123456, name: 'Ada' } } }],
  ['messages', 'from missing', { to: TO, body: 'hi' }],
  ['messages', 'body too long', { from: FROM, to: TO, body: 'x'.repeat(1601) }],
  ['messages', 'media not https', { from: FROM, to: TO, media_urls: ['http://example.com/a.jpg'] }],
  ['messages', 'media not an array', { from: FROM, to: TO, media_urls: 'https://example.com/a.jpg' }],
  ['messages', 'too many media', { from: FROM, to: TO, media_urls: Array(11).fill('https://example.com/a.jpg') }],
  ['messages', 'template typo', { from: FROM, to: TO, tempalte: { id: 'otp' } }],
  ['messages', 'template.id missing', { from: FROM, to: TO, template: { variables: {} } }],
  ['messages', 'template unknown key', { from: FROM, to: TO, template: { id: 'otp', vars: {} } }],
  ['messages', 'variables an array', { from: FROM, to: TO, template: { id: 'otp', variables: [] } }],
  ['messages', 'variable an object', { from: FROM, to: TO, template: { id: 'otp', variables: { name: {} } } }],
  ['messages', '__proto__ variable', { from: FROM, to: TO, template: JSON.parse('{"id": "otp", "variables": {"__proto__": "x"}}') }],
  ['query', 'limit 0', 'limit=0'],
  ['query', 'limit not a number', 'limit=abc'],
  ['query', 'limit 1e2', 'limit=1e2'],
  ['query', 'date past month end', 'created_before=2026-02-30'],
  ['query', 'unknown parameter', 'stauts=answered'],
  ['query', 'status typo', 'status=answerd'],
  ['query', 'direction, no guess', 'direction=sideways'],
  ['query', 'cursor empty', 'cursor='],
];

// ---- The contenders. ----
async function contenders() {
  const [kit, errors, suggest, phone, templates, calls, messages] = await Promise.all(
    [PATHS.kit, PATHS.errors, PATHS.suggest, PATHS.phone, PATHS.templates, PATHS.calls, PATHS.messages].map((p) => import(p)),
  );
  const helpers = { badRequest: errors.invalid, missing: errors.missing, nearest: suggest.nearest };
  const constants = { E164: phone.E164, MAX_BODY_CHARS: templates.MAX_BODY_CHARS };
  const out = {
    kit: {
      parse: {
        calls: (v) => calls.placeCallBody.parse(v, ''),
        messages: (v) => messages.sendMessageBody.parse(v, ''),
        query: (v) => calls.listCallsQuery.parse(v, ''),
      },
      openapi: {
        calls: calls.placeCallBody.openapi(),
        messages: messages.sendMessageBody.openapi(),
        query: calls.listCallsQuery.openapi(),
      },
    },
  };
  {
    const z = await import(PATHS.zod);
    const { zodKit, zodShapes } = await import(PATHS.zodAdapter);
    const k = zodKit({ z, ...helpers });
    const s = zodShapes(k, constants);
    out.zod = {
      parse: { calls: k.parser(s.placeCallBody), messages: k.parser(s.sendMessageBody), query: k.parser(s.listCallsQuery) },
      openapi: { calls: k.openapi(s.placeCallBody), messages: k.openapi(s.sendMessageBody), query: k.openapi(s.listCallsQuery) },
    };
  }
  if (hasValibot) {
    const v = await import(PATHS.valibot);
    const { toJsonSchema } = await import(PATHS.valibotJsonSchema);
    const { valibotKit, valibotShapes } = await import(PATHS.valibotAdapter);
    const k = valibotKit({ v, toJsonSchema, ...helpers });
    const s = valibotShapes(k, constants);
    out.valibot = {
      parse: { calls: k.parser(s.placeCallBody), messages: k.parser(s.sendMessageBody), query: k.parser(s.listCallsQuery) },
      openapi: { calls: k.openapi(s.placeCallBody), messages: k.openapi(s.sendMessageBody), query: k.openapi(s.listCallsQuery) },
    };
  }
  return { kit, contenders: out };
}

/** The value parsed, or the error's code, message and param: what a handler would go on with. */
function outcome(parse, input) {
  try {
    return JSON.stringify({ value: parse(input) });
  } catch (e) {
    return JSON.stringify({ status: e.status, code: e.code, message: e.message, param: e.param });
  }
}

/** Mean µs per parse over `n` calls; a refused input counts as one parse that threw our ApiError. */
function perParse(n, parse, input) {
  let sink = 0;
  const start = performance.now();
  for (let i = 0; i < n; i++) {
    try {
      sink += parse(input) === undefined ? 0 : 1;
    } catch (e) {
      sink += e.status;
    }
  }
  const us = ((performance.now() - start) * 1000) / n;
  return sink < 0 ? Infinity : us; // keeps `sink` alive
}

// ---- Import time, in fresh child processes. ----
const CHILD = {
  'empty module': `await import('data:text/javascript,export{}')`,
  'kit (dist/core/schema.js)': `await import(${JSON.stringify(PATHS.kit)})`,
  zod: `await import(${JSON.stringify(PATHS.zod)})`,
  'zod/mini': `await import(${JSON.stringify(PATHS.zodMini)})`,
  valibot: `await import(${JSON.stringify(PATHS.valibot)})`,
};
/** Import, build the three shapes and parse each timed input once: what a test process pays before its first request. */
const COLD = {
  kit: `
    const [calls, messages] = await Promise.all([import(${JSON.stringify(PATHS.calls)}), import(${JSON.stringify(PATHS.messages)})]);
    const parse = { calls: (v) => calls.placeCallBody.parse(v, ''), messages: (v) => messages.sendMessageBody.parse(v, ''), query: (v) => calls.listCallsQuery.parse(v, '') };`,
  zod: `
    const [z, errors, suggest, phone, templates, adapter] = await Promise.all([${[PATHS.zod, PATHS.errors, PATHS.suggest, PATHS.phone, PATHS.templates, PATHS.zodAdapter].map((p) => `import(${JSON.stringify(p)})`).join(', ')}]);
    const k = adapter.zodKit({ z, badRequest: errors.invalid, missing: errors.missing, nearest: suggest.nearest });
    const s = adapter.zodShapes(k, { E164: phone.E164, MAX_BODY_CHARS: templates.MAX_BODY_CHARS });
    const parse = { calls: k.parser(s.placeCallBody), messages: k.parser(s.sendMessageBody), query: k.parser(s.listCallsQuery) };`,
  valibot: `
    const [v, j, errors, suggest, phone, templates, adapter] = await Promise.all([${[PATHS.valibot, PATHS.valibotJsonSchema, PATHS.errors, PATHS.suggest, PATHS.phone, PATHS.templates, PATHS.valibotAdapter].map((p) => `import(${JSON.stringify(p)})`).join(', ')}]);
    const k = adapter.valibotKit({ v, toJsonSchema: j.toJsonSchema, badRequest: errors.invalid, missing: errors.missing, nearest: suggest.nearest });
    const s = adapter.valibotShapes(k, { E164: phone.E164, MAX_BODY_CHARS: templates.MAX_BODY_CHARS });
    const parse = { calls: k.parser(s.placeCallBody), messages: k.parser(s.sendMessageBody), query: k.parser(s.listCallsQuery) };`,
};
const coldScript = (setup) => `
  const t0 = performance.now();
  ${setup}
  const inputs = ${JSON.stringify(TIMED.map(([shape, , input]) => [shape, input]))};
  const query = (qs) => Object.assign(Object.create(null), Object.fromEntries(new URLSearchParams(qs)));
  for (const [shape, input] of inputs) { try { parse[shape](shape === 'query' ? query(input) : input); } catch {} }
  console.log(performance.now() - t0);`;

function childMs(script) {
  const r = spawnSync(
    process.execPath,
    ['--input-type=module', '-e', `const t0 = performance.now(); ${script}; console.log(performance.now() - t0);`],
    { encoding: 'utf8' },
  );
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return Number(r.stdout.trim().split('\n').at(-1));
}
function childColdMs(setup) {
  const r = spawnSync(process.execPath, ['--input-type=module', '-e', coldScript(setup)], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`child failed: ${r.stderr}`);
  return Number(r.stdout.trim().split('\n').at(-1));
}

// ---- Size. ----
/** Lines that hold code: not blank, not only a comment. */
function codeLines(text) {
  return text.split('\n').filter((l) => {
    const t = l.trim();
    return t && !t.startsWith('//') && !t.startsWith('/*') && !t.startsWith('*');
  }).length;
}
const region = (text, marker) => text.slice(text.indexOf(`// ---- ${marker}`), text.indexOf(`// ---- end ${marker}`));
function bytesUnder(dir) {
  let total = 0;
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const p = join(dir, entry.name);
    total += entry.isDirectory() ? bytesUnder(p) : statSync(p).size;
  }
  return total;
}

/** Where two JSON schemas differ, as "path: ours → theirs" lines. */
function differences(ours, theirs, path = '') {
  if (JSON.stringify(ours) === JSON.stringify(theirs)) return [];
  const isObj = (x) => x !== null && typeof x === 'object' && !Array.isArray(x);
  if (!isObj(ours) || !isObj(theirs))
    return [{ path: path || '/', line: `${path || '/'}: ${JSON.stringify(ours)} → ${JSON.stringify(theirs)}` }];
  const keys = [...new Set([...Object.keys(ours), ...Object.keys(theirs)])];
  return keys.flatMap((k) => differences(ours[k], theirs[k], `${path}/${k}`));
}
/** "example ×4, examples ×4": the keywords where they differ. */
function byKeyword(diff) {
  const counts = new Map();
  for (const { path } of diff) {
    const keyword = path.split('/').at(-1);
    counts.set(keyword, (counts.get(keyword) ?? 0) + 1);
  }
  return [...counts].map(([k, n]) => `${k} ×${n}`).join(', ');
}

export async function schemaKit({ quick = false } = {}) {
  const { kit, contenders: all } = await contenders();
  const names = Object.keys(all);
  const lines = [];
  const input = (shape, raw) => (shape === 'query' ? queryOf(kit, raw) : raw);

  // Same results? Every checked input, against the kit's own.
  for (const name of names.filter((n) => n !== 'kit')) {
    const differ = CHECKED.filter(
      ([shape, , raw]) => outcome(all[name].parse[shape], input(shape, raw)) !== outcome(all.kit.parse[shape], input(shape, raw)),
    );
    lines.push(
      `${name}: same value or same error (code, message, param) as the kit for ${CHECKED.length - differ.length} of ${CHECKED.length} inputs`,
    );
    for (const [shape, label, raw] of differ) {
      lines.push(
        `  differs, ${label}:`,
        `    kit:  ${outcome(all.kit.parse[shape], input(shape, raw))}`,
        `    ${name}: ${outcome(all[name].parse[shape], input(shape, raw))}`,
      );
    }
  }

  // Parse cost: interleaved rounds, each contender keeps its best (noise only slows a round down).
  const best = Object.fromEntries(TIMED.map(([, label]) => [label, Object.fromEntries(names.map((n) => [n, Infinity]))]));
  const block = quick ? 2_000 : 10_000;
  const rounds = quick ? 5 : 20;
  const prepared = TIMED.map(([shape, label, raw]) => [shape, label, input(shape, raw)]);
  for (let round = 0; round < rounds; round++) {
    for (const [shape, label, value] of prepared) {
      for (const name of names) best[label][name] = Math.min(best[label][name], perParse(block, all[name].parse[shape], value));
    }
  }
  for (const [, label] of TIMED) {
    for (const name of names.filter((n) => n !== 'kit'))
      lines.push(ratioLine(`${label}: ${name} vs kit`, best[label][name], best[label].kit, 'µs/parse'));
  }

  // Import time: fresh processes, interleaved, best of each.
  const children = quick ? 5 : 15;
  const imports = Object.fromEntries(Object.keys(CHILD).map((k) => [k, Infinity]));
  const cold = Object.fromEntries(names.map((k) => [k, Infinity]));
  for (let i = 0; i < children; i++) {
    for (const [label, script] of Object.entries(CHILD))
      if (label !== 'valibot' || hasValibot) imports[label] = Math.min(imports[label], childMs(script));
    for (const name of names) cold[name] = Math.min(cold[name], childColdMs(COLD[name]));
  }
  const kitImport = imports['kit (dist/core/schema.js)'];
  lines.push(ratioLine('import: zod vs kit', imports.zod, kitImport, 'ms'));
  lines.push(ratioLine('import: zod/mini (not used by the adapter) vs kit', imports['zod/mini'], kitImport, 'ms'));
  if (hasValibot) lines.push(ratioLine('import: valibot vs kit', imports.valibot, kitImport, 'ms'));
  lines.push(`  (importing an empty module costs ${imports['empty module'].toFixed(1)} ms of each figure above)`);
  lines.push(ratioLine('import + build 3 shapes + first parses: zod vs kit', cold.zod, cold.kit, 'ms'));
  if (hasValibot) lines.push(ratioLine('import + build 3 shapes + first parses: valibot vs kit', cold.valibot, cold.kit, 'ms'));

  // Size: the kit against the generic code each library needs to give the same messages.
  const kitSource = readFileSync(fileURLToPath(PATHS.kitSource), 'utf8');
  const zodSource = readFileSync(fileURLToPath(PATHS.zodAdapter), 'utf8');
  lines.push(
    `code lines (not blank, not comment): kit ${codeLines(kitSource)} (${kitSource.split('\n').length - 1} in all); ` +
      `zod adapter ${codeLines(region(zodSource, 'kit'))}, zod shapes ${codeLines(region(zodSource, 'shapes'))}`,
  );
  let installed = `installed size: zod ${(bytesUnder(fileURLToPath(PATHS.zodPackage)) / 2 ** 20).toFixed(1)} MiB`;
  if (hasValibot) {
    const valibotSource = readFileSync(fileURLToPath(PATHS.valibotAdapter), 'utf8');
    lines.push(
      `code lines: valibot adapter ${codeLines(region(valibotSource, 'kit'))}, valibot shapes ${codeLines(region(valibotSource, 'shapes'))}`,
    );
    installed += `, valibot ${(bytesUnder(fileURLToPath(PATHS.valibotPackage)) / 2 ** 20).toFixed(1)} MiB`;
  }
  lines.push(installed);

  // JSON Schema: how far each library's output is from our openapi().
  for (const name of names.filter((n) => n !== 'kit')) {
    for (const shape of ['calls', 'messages', 'query']) {
      const diff = differences(all.kit.openapi[shape], all[name].openapi[shape]);
      lines.push(
        `JSON Schema of ${shape}: ${name}'s differs from openapi() at ${diff.length} places${diff.length ? ` (${byKeyword(diff)})` : ''}`,
      );
      if (process.argv.includes('--schema-diff')) lines.push(...diff.map((d) => `    ${d.line}`));
    }
  }
  return lines;
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) {
  console.log((await schemaKit({ quick: process.argv.includes('--quick') })).join('\n'));
}
