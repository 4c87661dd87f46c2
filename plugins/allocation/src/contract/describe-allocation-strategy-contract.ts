import type { AllocationStrategy } from '@mqkit/core';
import { allocationContractChecks, type AllocationContractOptions } from './allocation-contract';

/** The two test functions the contract needs; vitest's, or any runner's with the same shape (jest, mocha). */
export interface TestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => void): unknown;
}

export interface DescribeContractOptions extends AllocationContractOptions {
  /** The runner's describe and it; default: the running vitest's (or describe/it globals). */
  readonly testApi?: TestApi;
}

const isTestApi = (api: unknown): api is TestApi =>
  typeof (api as TestApi | undefined)?.describe === 'function' &&
  typeof (api as TestApi | undefined)?.it === 'function';

/**
 * Finds the running test framework without importing it: the app's own runner is used, and @mqkit/allocation
 * neither depends on nor peers vitest. vitest refuses `require('vitest')` from CommonJS, but inside its workers it
 * publishes its module as `globalThis.__vitest_index__`; `describe`/`it` globals cover vitest's globals mode, jest
 * and mocha.
 */
function findTestApi(): TestApi {
  const scope = globalThis as { __vitest_index__?: unknown; describe?: unknown; it?: unknown };
  if (isTestApi(scope.__vitest_index__)) return scope.__vitest_index__;
  if (isTestApi(scope)) return scope;
  throw new Error(
    'describeAllocationStrategyContract runs inside a test file (vitest, or a runner with describe/it globals); elsewhere pass { testApi: { describe, it } }',
  );
}

/**
 * Declares the allocation strategy contract as tests: a strategy, yours or mqkit's, must be deterministic, give every
 * queue to exactly one member across the group, reject empty inputs with AllocationError, give a non-member nothing
 * and leave its (sorted, frozen) input alone.
 * The tests are declared with the test API of the runner the calling test file runs in (the app's vitest, or
 * `options.testApi`); vitest is not a dependency of this package.
 *
 * @example
 * ```ts
 * import { describeAllocationStrategyContract } from '@mqkit/allocation/testing';
 * describeAllocationStrategyContract('ZoneAwareStrategy', () => new ZoneAwareStrategy());
 * ```
 */
export function describeAllocationStrategyContract(
  name: string,
  factory: () => AllocationStrategy,
  options: DescribeContractOptions = {},
): void {
  const { describe, it } = options.testApi ?? findTestApi();
  describe(`allocation strategy contract: ${name}`, () => {
    for (const [title, check] of Object.entries(allocationContractChecks)) it(title, () => check(factory, options));
  });
}
