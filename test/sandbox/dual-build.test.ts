import { execFileSync } from 'node:child_process';
import { beforeAll, describe, expect, it } from 'vitest';
import { ensureBuilt, ROOT } from '../server/built-cli.js';

/**
 * One listening table per process across the two builds (docs/interception.md, "One table per
 * process"). Regression: the ES build (`dist/index.js`) and the CommonJS build
 * (`dist/cjs/index.cjs`) each kept a table of their own, so a process that imported one and
 * required the other accepted `listen()` on the same base URL twice and patched the globals
 * twice. Both builds are loaded in one fresh Node process, as a suite that mixes `import` and
 * `require` (or a dependency that requires the package) does.
 */
beforeAll(ensureBuilt, 120_000);

const SCRIPT = `
import { createRequire } from 'node:module';
import https from 'node:https';
const root = process.argv[1];
const esm = await import(root + 'dist/index.js');
const cjs = createRequire(root)(root + 'dist/cjs/index.cjs');
const originalFetch = globalThis.fetch;
const refusal = (fn) => { try { fn(); return null; } catch (e) { return { name: e.name, code: e.code, param: e.param, message: e.message } } };
const headers = { authorization: 'Bearer SVC_TEST_me', 'content-type': 'application/json' };
const place = async (base) => (await (await fetch(base + '/v1/calls', { method: 'POST', headers, body: JSON.stringify({ to: '+14155550123', from: '+14155550100' }) })).json()).id;
const viaHttps = (url) => new Promise((resolve, reject) => https.get(url, { headers }, (res) => { res.resume(); resolve(res.statusCode); }).on('error', reject));

const a = esm.createSandbox({ baseUrl: 'https://a.svc.test', seed: 1 }).listen();
const out = {};
out.sameBuild = refusal(() => esm.createSandbox({ baseUrl: 'https://a.svc.test' }).listen());
out.otherBuild = refusal(() => cjs.createSandbox({ baseUrl: 'https://a.svc.test' }).listen());
const b = cjs.createSandbox({ baseUrl: 'https://b.svc.test', seed: 2 }).listen();
out.reverse = refusal(() => esm.createSandbox({ baseUrl: 'https://b.svc.test' }).listen());
const [callA, callB] = [await place(a.baseUrl), await place(b.baseUrl)];
out.routed = { a: a.calls.list().map((c) => c.id), b: b.calls.list().map((c) => c.id), callA, callB };
out.httpsToB = await viaHttps(b.baseUrl + '/v1/calls');
a.close();
out.afterAClosed = { fetchToB: (await fetch(b.baseUrl + '/v1/calls', { headers })).status, stillPatched: globalThis.fetch !== originalFetch };
b.close();
out.restored = globalThis.fetch === originalFetch;
const c = cjs.createSandbox({ baseUrl: 'https://a.svc.test' }).listen(); // a's base URL is free again, for either build
out.relisten = c.baseUrl;
c.close();
console.log(JSON.stringify(out));
`;

describe('the ES and CommonJS builds in one process', () => {
  it('share one listening table: the same base URL is refused across builds as within one, and each routes to the other', () => {
    const out = JSON.parse(
      execFileSync(process.execPath, ['--input-type=module', '-e', SCRIPT, ROOT], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 }),
    );
    expect(out.sameBuild).toMatchObject({ name: 'SandboxError', code: 'conflict', param: 'baseUrl' });
    expect(out.sameBuild.message).toMatch(/another sandbox already listens on https:\/\/a\.svc\.test/);
    // The same refusal, word for word, whichever build listened first.
    expect(out.otherBuild).toEqual(out.sameBuild);
    expect(out.reverse).toEqual({ ...out.sameBuild, message: out.sameBuild.message.replace('a.svc.test', 'b.svc.test') });
    expect(out.routed.a).toEqual([out.routed.callA]);
    expect(out.routed.b).toEqual([out.routed.callB]);
    expect(out.httpsToB).toBe(200);
    // The interceptors the ES build applied keep serving the CommonJS build's sandbox after the ES one closed.
    expect(out.afterAClosed).toEqual({ fetchToB: 200, stillPatched: true });
    expect(out.restored).toBe(true);
    expect(out.relisten).toBe('https://a.svc.test');
  }, 90_000);
});
