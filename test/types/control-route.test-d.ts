import { describe, expectTypeOf, it } from 'vitest';
import { controlRoute, type PathParams } from '../../src/server/control/route.js';

/**
 * A control row's `params` are typed from its path template: each `{name}` is a `string` the row
 * reads without asserting it is there, and a name the path lacks does not compile.
 */
describe("a control row's params come from its path", () => {
  it('each {name} of the template is a string, and only those', () => {
    expectTypeOf<PathParams<'/sessions/{s}/keys/{key}'>>().toEqualTypeOf<{ s: string; key: string }>();
    expectTypeOf<PathParams<'/sessions/{s}/dead-letters/{id}/replay'>>().toEqualTypeOf<{ s: string; id: string }>();
    expectTypeOf<PathParams<'/health'>>().toEqualTypeOf<Record<never, string>>();
    // The table's own view of a row, whose path is any string.
    expectTypeOf<PathParams<string>>().toEqualTypeOf<Record<string, string>>();
  });

  it("a row's run sees its path's names", () => {
    controlRoute({
      method: 'DELETE',
      path: '/sessions/{s}/keys/{key}',
      summary: 'Revoke a key',
      operationId: 'revokeKey',
      status: 204,
      handle: ({ params }) => {
        expectTypeOf(params.key).toEqualTypeOf<string>();
        expectTypeOf(params.s).toEqualTypeOf<string>();
        // @ts-expect-error: the path has no {id}
        void params.id;
        return new Response(null, { status: 204 });
      },
    });
  });
});
