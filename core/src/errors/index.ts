export { MqkitError } from './mqkit.error';
export { ConfigurationError, describeIssue, type ConfigurationIssue } from './configuration.error';
export { BrokerError, type BrokerErrorKind } from './broker.error';
export { ProtocolError } from './protocol.error';
export { OffsetStoreError } from './offset-store.error';
export { AllocationError } from './allocation.error';
export { MessageValidationError } from './validation.error';
export { TimeoutError } from './timeout.error';
export { IllegalStateError } from './state.error';
