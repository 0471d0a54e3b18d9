import { describe, expectTypeOf, it } from 'vitest';
import {
  coverageSummary,
  createSandbox,
  mergeCoverage,
  type CoverageGap,
  type CoverageReport,
  type SandboxServer,
} from '../../src/index.js';

describe('coverage types', () => {
  it('sandbox.coverage(), server.coverage() and mergeCoverage answer a CoverageReport of counts', () => {
    expectTypeOf(createSandbox().coverage).returns.toEqualTypeOf<CoverageReport>();
    expectTypeOf<SandboxServer['coverage']>().returns.toEqualTypeOf<CoverageReport>();
    expectTypeOf(mergeCoverage).parameters.toEqualTypeOf<CoverageReport[]>();
    expectTypeOf(coverageSummary).returns.toEqualTypeOf<string>();
    expectTypeOf<CoverageReport['version']>().toEqualTypeOf<1>();
    expectTypeOf<CoverageReport['format']>().toEqualTypeOf<'svc-sandbox-coverage'>();
    expectTypeOf<CoverageReport['calls']['dispositions']>().toEqualTypeOf<Record<string, number>>();
    expectTypeOf<CoverageReport['uncovered']>().toEqualTypeOf<string[]>();
    expectTypeOf<CoverageReport['gaps']>().toEqualTypeOf<CoverageGap[]>();
    expectTypeOf<CoverageGap['needs']>().toEqualTypeOf<'behaviour' | 'fault'>();
  });
});
