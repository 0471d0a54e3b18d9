import { describe, expectTypeOf, it } from 'vitest';
import { road, type Stage } from '../../src/api/road.js';
import { defineRoute } from '../../src/api/router.js';
import type { CallService } from '../../src/state/calls.js';

/**
 * A road's stages are typed as hono types `c.var`: each reads only what the stages before it
 * filled, so a road written in the wrong order, or a stage reading a slot nothing fills, does not
 * compile (api/road.ts).
 */
describe("a road's stages read only what earlier stages filled", () => {
  interface Trip {
    path: string | null;
    route: { name: string } | null;
  }
  const within: Stage<Trip, { path: string }, string> = (_x, out) => {
    out.path = '/v1/calls';
    return undefined;
  };
  const match: Stage<Trip & { path: string }, { route: { name: string } }, string> = (x, out) => {
    expectTypeOf(x.path).toEqualTypeOf<string>();
    out.route = { name: x.path };
    return undefined;
  };

  it('in order, the row reads every slot as filled', () => {
    road<Trip, string>()
      .stage(within)
      .stage(match)
      .run((x) => {
        expectTypeOf(x.route).toEqualTypeOf<{ name: string }>();
        return x.route.name;
      });
  });

  it('out of order, the road does not compile', () => {
    road<Trip, string>()
      // @ts-expect-error: match needs the path, which within fills after it
      .stage(match)
      .stage(within);
  });

  it('a row reading a slot no stage fills does not compile', () => {
    road<Trip, string>()
      .stage(within)
      // @ts-expect-error: no stage filled the route
      .run((x) => x.route.name);
  });
});

describe("a /v1 row's handler is typed by its path and the sandbox's parts", () => {
  const response = { status: 200, description: 'The call.' };
  it('reads its params and the parts a sandbox provides', () => {
    defineRoute({
      method: 'GET',
      path: '/v1/calls/{id}',
      resource: 'calls',
      summary: 'Fetch a call',
      description: 'A call.',
      operationId: 'getCall',
      response,
      handle: (ctx, { calls }: { calls: CallService }) => {
        expectTypeOf(ctx.params).toEqualTypeOf<{ id: string }>();
        return { status: 200, body: calls.store.get(ctx.principal.account, ctx.params.id) };
      },
    });
  });

  it('asking for a part no sandbox provides does not compile', () => {
    defineRoute({
      method: 'GET',
      path: '/v1/calls/{id}',
      resource: 'calls',
      summary: 'Fetch a call',
      description: 'A call.',
      operationId: 'getCall',
      response,
      // @ts-expect-error: no sandbox has a `billing` part
      handle: (_ctx, { billing }: { billing: { charge(): number } }) => ({ status: 200, body: billing.charge() }),
    });
  });
});
