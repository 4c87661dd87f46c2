import type { AllocationStrategy } from '@mqkit/core';
import { allocationContractChecks, type AllocationContractOptions } from './allocation-contract';

/** The two test functions the contract needs; vitest's, or any runner's with the same shape (jest, mocha). */
export interface TestApi {
  describe(name: string, body: () => void): unknown;
  it(name: string, body: () => void): unknown;
}

export interface DescribeContractOptions extends AllocationContractOptions {
  /** The runner's describe and it; default vitest's, loaded only when this function runs (vitest is an optional peer). */
  readonly testApi?: TestApi;
}

function loadVitest(): TestApi {
  try {
    // Required lazily so that importing @mqkit/allocation/testing never needs vitest.
    return require('vitest') as TestApi;
  } catch (error) {
    throw new Error('describeAllocationStrategyContract needs vitest (an optional peer dependency of @mqkit/allocation); install it or pass { testApi: { describe, it } }', { cause: error });
  }
}

/**
 * Declares the allocation strategy contract as tests: a strategy, yours or mqkit's, must be deterministic, give every
 * queue to exactly one member across the group, reject empty inputs with AllocationError, give a non-member nothing
 * and leave its (sorted, frozen) input alone.
 *
 * @example
 * ```ts
 * import { describeAllocationStrategyContract } from '@mqkit/allocation/testing';
 * describeAllocationStrategyContract('ZoneAwareStrategy', () => new ZoneAwareStrategy());
 * ```
 */
export function describeAllocationStrategyContract(name: string, factory: () => AllocationStrategy, options: DescribeContractOptions = {}): void {
  const { describe, it } = options.testApi ?? loadVitest();
  describe(`allocation strategy contract: ${name}`, () => {
    for (const [title, check] of Object.entries(allocationContractChecks)) it(title, () => check(factory, options));
  });
}
