/**
 * The test kit: names, delivery records, a producer helper, free ports, wait-for helpers, and the contract suites
 * every plugin must pass.
 */
export { waitFor, type WaitForOptions } from './testing/wait-for';
export { uniqueName } from './testing/unique-name';
export { Deliveries } from './testing/deliveries';
export { sendSeqs, type SendSeqsOptions } from './testing/send-seqs';
export { freePort } from './testing/free-port';
export {
  describeOffsetStoreContract,
  type OffsetStoreContractBackend,
  type OffsetStoreContractSetup,
} from './testing/offset-store.contract';
export { simulateCrash } from './testing/simulate-crash';
export { SQL92_CASES, SQL92_SAMPLES, type Sql92Sample } from './testing/sql92-cases';
