/** The test kit: wait-for helpers and (later) the contract suites every plugin must pass. */
export { waitFor, type WaitForOptions } from './testing/wait-for';
export {
  describeOffsetStoreContract,
  type OffsetStoreContractBackend,
  type OffsetStoreContractSetup,
} from './testing/offset-store.contract';
export { simulateCrash } from './testing/simulate-crash';
export { SQL92_CASES, SQL92_SAMPLES, type Sql92Sample } from './testing/sql92-cases';
