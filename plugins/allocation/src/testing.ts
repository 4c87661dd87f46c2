/** The test kit: the contract every allocation strategy must pass, usable on your own strategies. */
export {
  AllocationContractViolation,
  allocationContractChecks,
  checkAllocationStrategy,
  randomAllocationInput,
  type AllocationContractCheck,
  type AllocationContractOptions,
} from './contract/allocation-contract';
export {
  describeAllocationStrategyContract,
  type DescribeContractOptions,
  type TestApi,
} from './contract/describe-allocation-strategy-contract';
export { SeededRandom } from './simulator/seeded-random';
