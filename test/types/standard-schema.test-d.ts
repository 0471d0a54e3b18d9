import { describe, expectTypeOf, it } from 'vitest';
import type { Schema, StandardResult, StandardSchemaV1 } from '../../src/core/schema.js';
import type { parseScenario, Scenario } from '../../src/index.js';
import type { callBehavior } from '../../src/scripting/network.js';
import type { CallBehavior } from '../../src/sim/carrier.js';
import type { callSchema } from '../../src/state/resources.js';
import type { Call } from '../../src/index.js';

/**
 * The kit's schemas are Standard Schema v1 (standardschema.dev): a tool that takes any
 * `StandardSchemaV1` takes them, and infers the parsed type from them.
 */
type OutputOf<S extends StandardSchemaV1> = S extends StandardSchemaV1<unknown, infer O> ? O : never;

describe('the schema kit speaks Standard Schema v1', () => {
  it('every schema is a StandardSchemaV1 whose output is the schema’s type', () => {
    expectTypeOf<Schema<number>>().toExtend<StandardSchemaV1<unknown, number>>();
    expectTypeOf<OutputOf<typeof callSchema>>().toEqualTypeOf<Call>();
    expectTypeOf<OutputOf<typeof callBehavior>>().toEqualTypeOf<CallBehavior>();
    expectTypeOf<(typeof callSchema)['~standard']['version']>().toEqualTypeOf<1>();
    expectTypeOf<ReturnType<(typeof callSchema)['~standard']['validate']>>().toExtend<
      StandardResult<Call> | Promise<StandardResult<Call>>
    >();
  });
});

describe('parseScenario', () => {
  it('returns a Scenario, startTime as written (a string), never epoch milliseconds', () => {
    expectTypeOf<ReturnType<typeof parseScenario>>().toEqualTypeOf<Scenario>();
    expectTypeOf<Scenario['startTime']>().toEqualTypeOf<string | undefined>();
  });
});
