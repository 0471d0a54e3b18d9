import { afterEach, describe, expect, it } from 'vitest';
import { createSandbox, SandboxError, type Sandbox } from '../../src/index.js';
import { conformingServer } from '../server/conforming.js';
import { FROM, KEY, TO } from '../helpers.js';

// Regression: nesting 10,000 deep in a scenario's request.body, request.fields, expect.resources[].fields or expect.events[].data answered 500 "Maximum call stack size exceeded".

/** JSON text of `{"a": {"a": … 1 …}}`, `levels` objects deep (as text: JSON.stringify itself overflows on such a value). */
const deep = (levels: number) => `${'{"a":'.repeat(levels)}1${'}'.repeat(levels)}`;
/** `.a` `n` times: where the 65th level lies below a hole at level 65 - n. */
const as = (n: number) => '.a'.repeat(n);

/** A scenario's JSON with `hole` (a JSON text) at one of the four places that take any JSON; the hole's path with the `.a`s to level 65. */
const PLACES: Array<[string, (hole: string) => string, string]> = [
  [
    'request.body',
    (hole) => `{"name":"deep","steps":[{"at":"0s","request":{"method":"POST","path":"/v1/calls","body":${hole}}}]}`,
    `steps[0].request.body${as(60)}`,
  ],
  [
    'request.fields',
    (hole) => `{"name":"deep","steps":[{"at":"0s","request":{"method":"GET","path":"/v1/calls","fields":${hole}}}]}`,
    `steps[0].request.fields${as(60)}`,
  ],
  [
    'expect.resources[].fields',
    (hole) => `{"name":"deep","steps":[{"at":"0s","expect":{"resources":[{"path":"/v1/calls","fields":${hole}}]}}]}`,
    `steps[0].expect.resources[0].fields${as(58)}`,
  ],
  [
    'expect.events[].data',
    (hole) => `{"name":"deep","steps":[{"at":"0s","expect":{"events":[{"type":"call.started","data":${hole}}]}}]}`,
    `steps[0].expect.events[0].data${as(58)}`,
  ],
];

describe('nesting past the limit, in-process', () => {
  const open: Sandbox[] = [];
  afterEach(() => {
    for (const sandbox of open.splice(0)) sandbox.close();
  });
  const make = () => {
    const sandbox = createSandbox({ seed: 5 });
    open.push(sandbox);
    return sandbox;
  };

  it.each(PLACES)('sandbox.run: a scenario nested 10,000 deep in %s is a SandboxError naming the path', async (_, scenario, at) => {
    const sandbox = make();
    const error = await sandbox.run(JSON.parse(scenario(deep(10_000)))).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SandboxError);
    expect(error).toMatchObject({ code: 'invalid_parameter', param: at });
    expect((error as Error).message).toMatch(/nests deeper than 64 levels of arrays and objects/);
    expect(sandbox.requests.list()).toEqual([]);
  });

  /** POST /v1/calls with `campaign` nested `levels` deep. */
  const placeNested = (sandbox: Sandbox, levels: number) =>
    sandbox.handle(
      new Request(`${sandbox.baseUrl}/v1/calls`, {
        method: 'POST',
        headers: { authorization: `Bearer ${KEY}`, 'content-type': 'application/json' },
        body: `{"to":"${TO}","from":"${FROM}","campaign":${deep(levels)}}`,
      }),
    );

  it('a /v1 body nested past the limit is 400 naming the path, and changes nothing', async () => {
    const sandbox = make();
    const res = await placeNested(sandbox, 100_000);
    expect(res.status).toBe(400);
    expect((await res.json()).error).toMatchObject({ code: 'invalid_parameter', param: `campaign${as(63)}` });
    expect(sandbox.calls.list()).toEqual([]);
  });

  it('nesting up to the limit is no refusal of its own: the route schema answers as it would', async () => {
    const res = await placeNested(make(), 63);
    expect(res.status).toBe(400);
    expect((await res.json()).error.message).not.toMatch(/nests deeper/);
  });
});

describe('nesting past the limit, on the server', () => {
  const { call, control } = conformingServer(5);

  it.each(PLACES)('POST …/scenario nested 10,000 deep in %s is 400 naming the path, and runs nothing', async (_, scenario, at) => {
    const answer = await call('POST', '/__sandbox/sessions/default/scenario', scenario(deep(10_000)));
    expect(answer.status).toBe(400);
    expect(answer.body.error).toMatchObject({ code: 'invalid_parameter', param: at });
    expect((await control.get('/sessions/default/requests')).body.data).toEqual([]);
  });

  it('every control body is held to it: a fault rule or a session nested deep is 400, not 500', async () => {
    for (const [path, body] of [
      ['/__sandbox/sessions/default/faults', `{"path":"/v1/calls","status":503,"x":${deep(10_000)}}`],
      ['/__sandbox/sessions', `{"snapshot":${deep(10_000)}}`],
    ] as const) {
      const answer = await call('POST', path, body);
      expect(answer.status, path).toBe(400);
      expect(answer.body.error.message, path).toMatch(/nests deeper than 64 levels/);
    }
  });
});
